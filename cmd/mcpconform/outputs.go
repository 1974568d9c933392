package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/report"
)

// outputFlags are the run command's flags for the JSON and Markdown reports,
// the baseline and the console's verbosity. Each is also read from
// MCPCONFORM_<NAME> (dashes as underscores); a flag on the command line wins.
func outputFlags() []cli.Flag {
	env := func(name string) []string {
		return []string{"MCPCONFORM_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))}
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "json", EnvVars: env("json"),
			Usage: "write every result and the host's metadata as JSON (schema: docs/reports.md) to `FILE` [MCPCONFORM_JSON]"},
		&cli.StringFlag{Name: "html", EnvVars: env("html"),
			Usage: "write a self-contained HTML interop grid with the evidence inline to `FILE` [MCPCONFORM_HTML]"},
		&cli.StringFlag{Name: "markdown", EnvVars: env("markdown"),
			Usage: "write a Markdown summary (for $GITHUB_STEP_SUMMARY or a merge-request comment) to `FILE` [MCPCONFORM_MARKDOWN]"},
		&cli.StringFlag{Name: "expectations", EnvVars: env("expectations"),
			Usage: "baseline YAML `FILE`: per host, the checks expected to fail; they do not fail the run [MCPCONFORM_EXPECTATIONS]"},
		&cli.BoolFlag{Name: "allow-stale", EnvVars: env("allow-stale"),
			Usage: "do not fail the run for baseline entries whose check now passes [MCPCONFORM_ALLOW_STALE]"},
		&cli.StringFlag{Name: "update-baseline", EnvVars: env("update-baseline"),
			Usage: "write the current failures as a baseline to `FILE`, keeping its other hosts' entries [MCPCONFORM_UPDATE_BASELINE]"},
		&cli.StringFlag{Name: "attachments-root", EnvVars: env("attachments-root"),
			Usage: "write JUnit [[ATTACHMENT|path]] lines relative to `DIR` (GitLab: $CI_PROJECT_DIR); absolute otherwise [MCPCONFORM_ATTACHMENTS_ROOT]"},
		&cli.BoolFlag{Name: "verbose", EnvVars: env("verbose"),
			Usage: "print each check's clause, spec reference, baseline entry and evidence, and each host's metadata [MCPCONFORM_VERBOSE]"},
	}
}

// loadExpectations reads --expectations, and checks that an existing
// --update-baseline file parses, before anything runs: a grammar error is a
// usage error (exit 2) naming the file and the line, not a surprise at the
// end of a long run.
func loadExpectations(c *cli.Context) (*baseline.Expectations, error) {
	var exp *baseline.Expectations
	if path := c.String("expectations"); path != "" {
		var err error
		if exp, err = baseline.Load(path); err != nil {
			return nil, usage(err)
		}
	}
	if path := c.String("update-baseline"); path != "" && path != c.String("expectations") {
		if _, err := readBaseline(path); err != nil {
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

// writeOutputs applies the baseline to run (so the JUnit and TAP writers,
// called after it, render expected failures), then writes --json,
// --markdown, --html and --update-baseline. Every file is written even when another
// fails; the errors are joined.
func writeOutputs(c *cli.Context, run *report.Run, exp *baseline.Expectations) error {
	baseline.Apply(run, exp)
	var errs []error
	if path := c.String("json"); path != "" {
		errs = append(errs, writeFile(path, func(w io.Writer) error { return report.WriteJSON(w, *run) }))
	}
	if path := c.String("markdown"); path != "" {
		errs = append(errs, writeFile(path, func(w io.Writer) error { return report.WriteMarkdown(w, *run) }))
	}
	if path := c.String("html"); path != "" {
		errs = append(errs, writeFile(path, func(w io.Writer) error { return report.WriteHTML(w, *run, report.HTMLOptions{}) }))
	}
	if path := c.String("update-baseline"); path != "" {
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
	return writeFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// junitOptions are the JUnit writer's options from the flags.
func junitOptions(c *cli.Context) report.JUnitOptions {
	return report.JUnitOptions{AttachmentsRoot: c.String("attachments-root")}
}

// consoleOptions are the console's options from the flags; the caller adds
// report.ConsoleQuiet from its own --quiet.
func consoleOptions(c *cli.Context) []report.ConsoleOption {
	return []report.ConsoleOption{report.ConsoleVerbose(c.Bool("verbose"))}
}

// verdictCode is the exit code a finished run earns, judged against the
// baseline (nil: none): ExitFailures for a failure no entry covers, or for
// a stale entry unless allowStale; ExitNoTests when no check was judged
// (nothing selected, or everything skipped); else ExitOK. Infrastructure
// errors and signals are the caller's to map first.
func verdictCode(run report.Run, exp *baseline.Expectations, allowStale bool) int {
	switch baseline.Evaluate(run, exp).Verdict(allowStale) {
	case baseline.Fail:
		return ExitFailures
	case baseline.Empty:
		return ExitNoTests
	}
	return ExitOK
}

// verdictError is verdictCode as the error runSuite returns: nil for
// ExitOK, else an *exitError whose message says what failed the run
// (regressions and stale entries by host and id) or that nothing ran.
func verdictError(run report.Run, exp *baseline.Expectations, allowStale bool) error {
	code := verdictCode(run, exp, allowStale)
	if code == ExitOK {
		return nil
	}
	r := baseline.Evaluate(run, exp)
	if code == ExitNoTests {
		return &exitError{code: code, err: errors.New("no check passed or failed: every selected check was skipped")}
	}
	file := run.Baseline
	if exp != nil {
		file = exp.File
	}
	var parts []string
	if reg := r.Regressions(); len(reg) > 0 && file != "" {
		parts = append(parts, fmt.Sprintf("%d %s not in the baseline: %s", len(reg), plural(len(reg), "failure", "failures"), listCases(reg)))
	}
	if st := r.Stale(); len(st) > 0 && !allowStale {
		parts = append(parts, fmt.Sprintf("%d stale baseline %s (the check passes now; remove %s from %s, or pass --allow-stale): %s",
			len(st), plural(len(st), "entry", "entries"), plural(len(st), "it", "them"), file, listCases(st)))
	}
	if len(parts) == 0 {
		// Failures without a baseline: the console and reports say which;
		// main prints nothing more for an exitError without a message.
		return &exitError{code: code}
	}
	return &exitError{code: code, err: errors.New(strings.Join(parts, "; "))}
}

func listCases(cs []baseline.CaseResult) string {
	const most = 10
	var s []string
	for i, c := range cs {
		if i == most {
			s = append(s, fmt.Sprintf("and %d more", len(cs)-most))
			break
		}
		s = append(s, c.Host+" "+c.ID)
	}
	return strings.Join(s, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
