package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/report"
)

// outputConfig is the run command's JSON and Markdown reports, the
// baseline and the console's verbosity, from MCPCONFORM_<NAME> (dashes as
// underscores) and the flags, which win.
type outputConfig struct {
	JSON            string `env:"JSON" flag:"json"`
	Markdown        string `env:"MARKDOWN" flag:"markdown"`
	Expectations    string `env:"EXPECTATIONS" flag:"expectations"`
	AllowStale      bool   `env:"ALLOW_STALE" flag:"allow-stale"`
	UpdateBaseline  string `env:"UPDATE_BASELINE" flag:"update-baseline"`
	AttachmentsRoot string `env:"ATTACHMENTS_ROOT" flag:"attachments-root"`
	Verbose         bool   `env:"VERBOSE" flag:"verbose"`
}

// outputs are the reports of a run by format ("-" is stdout for each).
func (o outputConfig) outputs(cfg Config) report.Outputs {
	outs := report.Outputs{}
	for name, path := range map[string]string{"junit": cfg.JUnit, "tap": cfg.TAP, "json": o.JSON, "markdown": o.Markdown} {
		if path != "" {
			outs[name] = path
		}
	}
	return outs
}

func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "json", Usage: "write every result and the host's metadata as JSON (schema: docs/reports.md) to `FILE` (- for stdout) [MCPCONFORM_JSON]"},
		&cli.StringFlag{Name: "markdown", Usage: "write a Markdown summary (for $GITHUB_STEP_SUMMARY or a merge-request comment) to `FILE` (- for stdout) [MCPCONFORM_MARKDOWN]"},
		&cli.StringFlag{Name: "expectations", Usage: "baseline YAML `FILE`: per host, the checks expected to fail; they do not fail the run [MCPCONFORM_EXPECTATIONS]"},
		&cli.BoolFlag{Name: "allow-stale", Usage: "do not fail the run for baseline entries whose check now passes [MCPCONFORM_ALLOW_STALE]"},
		&cli.StringFlag{Name: "update-baseline", Usage: "write the current failures as a baseline to `FILE`, keeping its other hosts' entries [MCPCONFORM_UPDATE_BASELINE]"},
		&cli.StringFlag{Name: "attachments-root", Usage: "write JUnit [[ATTACHMENT|path]] lines relative to `DIR` (GitLab: $CI_PROJECT_DIR); absolute otherwise [MCPCONFORM_ATTACHMENTS_ROOT]"},
		&cli.BoolFlag{Name: "verbose", Usage: "print each check's clause, spec reference, baseline entry and evidence, and each host's metadata [MCPCONFORM_VERBOSE]"},
	}
}

// loadExpectations reads --expectations, and checks that an existing
// --update-baseline file parses, before anything runs: a grammar error is a
// usage error (exit 2) naming the file and the line, not a surprise at the
// end of a long run.
func loadExpectations(o outputConfig) (*baseline.Expectations, error) {
	var exp *baseline.Expectations
	if o.Expectations != "" {
		var err error
		if exp, err = baseline.Load(o.Expectations); err != nil {
			return nil, usage(err)
		}
	}
	if o.UpdateBaseline != "" && o.UpdateBaseline != o.Expectations {
		if _, err := readBaseline(o.UpdateBaseline); err != nil {
			return nil, usage(fmt.Errorf("--update-baseline: %w", err))
		}
	}
	return exp, nil
}

// readBaseline loads an existing baseline file, or returns nil when there
// is none yet.
func readBaseline(path string) (*baseline.Expectations, error) {
	exp, err := baseline.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return exp, err
}

// writeOutputs applies the baseline to run, then writes every report and
// --update-baseline. Every file is written even when another fails; the
// errors are joined.
func writeOutputs(cfg Config, run *report.Run, exp *baseline.Expectations, stdout io.Writer) error {
	baseline.Apply(run, exp)
	errs := []error{report.Write(cfg.Out.outputs(cfg), *run, report.Options{JUnit: report.JUnitOptions{AttachmentsRoot: cfg.Out.AttachmentsRoot}}, stdout)}
	if path := cfg.Out.UpdateBaseline; path != "" {
		errs = append(errs, updateBaseline(path, *run))
	}
	return errors.Join(errs...)
}

// updateBaseline rewrites path to accept run: the hosts that ran get their
// current failures, the file's other hosts are kept as they were.
func updateBaseline(path string, run report.Run) error {
	prev, err := readBaseline(path)
	if err != nil {
		return fmt.Errorf("--update-baseline: %w", err)
	}
	data, err := baseline.Update(prev, run)
	if err != nil {
		return fmt.Errorf("--update-baseline %s: %w", path, err)
	}
	return report.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// verdictCode is the exit code a finished run earns (session.Judge):
// ExitFailures, ExitNoTests or ExitOK. Infrastructure errors and signals
// are the caller's to map first.
func verdictCode(run report.Run, exp *baseline.Expectations, allowStale bool) int {
	v, _ := session.Judge(run, exp, true, allowStale)
	return verdictExit[v]
}

var verdictExit = map[baseline.Verdict]int{baseline.Pass: ExitOK, baseline.Fail: ExitFailures, baseline.Empty: ExitNoTests}

// verdictError is verdictCode as the error runSuite returns: nil for
// ExitOK, else an *exitError whose message says what failed the run, or
// none when the console and reports already say it.
func verdictError(run report.Run, exp *baseline.Expectations, allowStale bool) error {
	v, msg := session.Judge(run, exp, true, allowStale)
	if verdictExit[v] == ExitOK {
		return nil
	}
	return &exitError{code: verdictExit[v], err: msg}
}
