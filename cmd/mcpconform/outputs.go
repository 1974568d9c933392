package main

import (
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// outputConfig is the run command's JSON and Markdown reports, the
// expectations file and the console's verbosity, from MCPCONFORM_<NAME> (dashes as
// underscores) and the flags, which win.
type outputConfig struct {
	JSON               string `env:"JSON" flag:"json"`
	HTML               string `env:"HTML" flag:"html"`
	Markdown           string `env:"MARKDOWN" flag:"markdown"`
	Expectations       string `env:"EXPECTATIONS" flag:"expectations"`
	AllowStale         bool   `env:"ALLOW_STALE" flag:"allow-stale"`
	UpdateExpectations string `env:"UPDATE_EXPECTATIONS" flag:"update-expectations"`
	// UpdateBaseline is the old name of UpdateExpectations, kept hidden so
	// that existing CI keeps working; the new name wins.
	UpdateBaseline  string `env:"UPDATE_BASELINE" flag:"update-baseline"`
	AttachmentsRoot string `env:"ATTACHMENTS_ROOT" flag:"attachments-root"`
	Verbose         bool   `env:"VERBOSE" flag:"verbose"`
}

// outputs are the reports of a run by format ("-" is stdout for each).
func (o outputConfig) outputs(cfg Config) report.Outputs {
	return report.OutputsOf(map[string]string{"junit": cfg.JUnit, "tap": cfg.TAP, "json": o.JSON, "markdown": o.Markdown, "html": o.HTML})
}

func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "json", Usage: "write every result and the host's metadata as JSON (schema: docs/reports.md) to `FILE` (- for stdout) [MCPCONFORM_JSON]"},
		&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML interop grid with the evidence inline to `FILE` (- for stdout) [MCPCONFORM_HTML]"},
		&cli.StringFlag{Name: "markdown", Usage: "write a Markdown summary (for $GITHUB_STEP_SUMMARY or a merge-request comment) to `FILE` (- for stdout) [MCPCONFORM_MARKDOWN]"},
		&cli.StringFlag{Name: "expectations", Usage: "expectations YAML `FILE`: per host, the checks expected to fail; they do not fail the run [MCPCONFORM_EXPECTATIONS]"},
		&cli.BoolFlag{Name: "allow-stale", Usage: "do not fail the run for expectations entries whose check now passes [MCPCONFORM_ALLOW_STALE]"},
		&cli.StringFlag{Name: "update-expectations", Usage: "write the current failures as an expectations `FILE`, keeping its other hosts' entries [MCPCONFORM_UPDATE_EXPECTATIONS]"},
		&cli.StringFlag{Name: "update-baseline", Hidden: true, Usage: "old name of --update-expectations [MCPCONFORM_UPDATE_BASELINE]"},
		&cli.StringFlag{Name: "attachments-root", Usage: "write JUnit [[ATTACHMENT|path]] lines relative to `DIR` (GitLab: $CI_PROJECT_DIR); absolute otherwise [MCPCONFORM_ATTACHMENTS_ROOT]"},
		&cli.BoolFlag{Name: "verbose", Usage: "print each check's clause, spec reference, expectations entry and evidence, and each host's metadata [MCPCONFORM_VERBOSE]"},
	}
}

// updateTarget is --update-expectations, else its old name
// --update-expectations.
func (o outputConfig) updateTarget() string {
	if o.UpdateExpectations != "" {
		return o.UpdateExpectations
	}
	return o.UpdateBaseline
}

// reports are where the run's results go.
func (o outputConfig) reports(cfg Config) conform.Reports {
	return conform.Reports{Outputs: o.outputs(cfg), UpdateExpectations: o.updateTarget(),
		Options: report.Options{JUnit: report.JUnitOptions{AttachmentsRoot: o.AttachmentsRoot}}}
}

// loadExpectations reads --expectations and checks an existing
// --update-expectations file before anything runs; a bad file is a usage
// error (exit 2) naming the file and the line.
func loadExpectations(o outputConfig) (*expectations.Expectations, error) {
	exp, err := conform.LoadExpectations(o.Expectations, o.updateTarget())
	if err != nil {
		return nil, usage(err)
	}
	return exp, nil
}

var verdictExit = map[expectations.Verdict]int{expectations.Pass: ExitOK, expectations.Fail: ExitFailures, expectations.Empty: ExitNoTests}

// verdictError is the exit code a finished run earns (conform.Judge:
// ExitFailures, ExitNoTests or ExitOK) as the error runSuite returns: nil
// for ExitOK, else an *exitError whose message says what failed the run,
// or none when the console and reports already say it. Infrastructure
// errors and signals are the caller's to map first.
func verdictError(run report.Run, exp *expectations.Expectations, allowStale bool) error {
	v, msg := conform.Judge(run, exp, true, allowStale)
	if verdictExit[v] == ExitOK {
		return nil
	}
	return &exitError{code: verdictExit[v], err: msg}
}
