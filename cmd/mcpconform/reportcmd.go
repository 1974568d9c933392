package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/report"
)

// reportCommand converts results saved by `run --json` into the other
// formats without running anything:
//
//	mcpconform report --from results.json [--from more.json]... [--junit F] [--tap F|-]
//	                  [--markdown F|-] [--json F|-] [--attachments-root D] [--expectations F]
//
// Several --from files (one per host, e.g. from a CI matrix) are merged
// into one report with a suite or subtest per host. --expectations applies
// a baseline again, replacing the one the results were written with.
// It exits 0 once every report is written, 2 for bad input, 3 when a
// report cannot be written; it does not judge the run (run does that).
func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "convert saved results (run --json) to JUnit, TAP, Markdown or JSON without running again",
		UsageText: "mcpconform report --from results.json [--from more.json]... [--junit FILE] [--tap FILE|-] [--markdown FILE|-] [--json FILE|-]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "from", Usage: "results `FILE` written by run --json (- for stdin; repeat to merge hosts)"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "tap", Usage: "write TAP version 14 to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "markdown", Usage: "write the Markdown summary to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "json", Usage: "write the (merged) results as JSON to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "attachments-root", Usage: "write JUnit [[ATTACHMENT|path]] lines relative to `DIR`"},
			&cli.StringFlag{Name: "expectations", Usage: "apply this baseline YAML `FILE` instead of the one the results carry"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return usage(fmt.Errorf("report takes no arguments, got %q (use --from)", c.Args().Slice()))
			}
			froms := c.StringSlice("from")
			if len(froms) == 0 {
				return usage(errors.New("report needs --from FILE (the results written by mcpconform run --json)"))
			}
			outs := map[string]string{}
			stdout := 0
			for _, name := range []string{"junit", "tap", "markdown", "json"} {
				if v := c.String(name); v != "" {
					outs[name] = v
					if v == "-" {
						stdout++
					}
				}
			}
			if len(outs) == 0 {
				return usage(errors.New("nothing to write: give --junit, --tap, --markdown or --json"))
			}
			if stdout > 1 {
				return usage(errors.New("only one report can go to stdout (-)"))
			}
			run, err := readRuns(froms, c.App.Reader)
			if err != nil {
				return usage(err)
			}
			if path := c.String("expectations"); path != "" {
				exp, err := baseline.Load(path)
				if err != nil {
					return usage(err)
				}
				baseline.Apply(&run, exp)
			}
			writers := map[string]func(io.Writer) error{
				"junit":    func(w io.Writer) error { return report.WriteJUnit(w, run, junitOptions(c)) },
				"tap":      func(w io.Writer) error { return report.WriteTAP(w, run) },
				"markdown": func(w io.Writer) error { return report.WriteMarkdown(w, run) },
				"json":     func(w io.Writer) error { return report.WriteJSON(w, run) },
			}
			var errs []error
			for _, name := range []string{"junit", "tap", "markdown", "json"} {
				path, ok := outs[name]
				switch {
				case !ok:
				case path == "-":
					errs = append(errs, writers[name](c.App.Writer))
				default:
					errs = append(errs, writeFile(path, writers[name]))
				}
			}
			if err := errors.Join(errs...); err != nil {
				return &exitError{code: ExitInfra, err: fmt.Errorf("writing reports: %w", err)}
			}
			return nil
		},
	}
}

// readRuns reads and merges results files. The merged run starts at the
// earliest start and lasts until the latest end; a host may appear only
// once, since (classname, name) must stay unique in JUnit.
func readRuns(froms []string, stdin io.Reader) (report.Run, error) {
	var merged report.Run
	where := map[string]string{}
	var baselines []string
	var end time.Time
	for i, from := range froms {
		var r report.Run
		var err error
		if from == "-" {
			if stdin == nil {
				stdin = os.Stdin
			}
			r, err = report.ReadJSON(stdin)
		} else {
			var f *os.File
			if f, err = os.Open(from); err == nil {
				r, err = report.ReadJSON(f)
				f.Close()
			}
		}
		if err != nil {
			return merged, fmt.Errorf("--from %s: %w", from, err)
		}
		for _, h := range r.Hosts {
			if prev, dup := where[h.Host]; dup {
				return merged, fmt.Errorf("host %q is in both %s and %s: merge results of different hosts only", h.Host, prev, from)
			}
			where[h.Host] = from
		}
		if i == 0 {
			merged = r
			merged.Hosts = append([]report.HostRun(nil), r.Hosts...)
			end = r.StartedAt.Add(r.Duration)
		} else {
			merged.Hosts = append(merged.Hosts, r.Hosts...)
			if merged.StartedAt.IsZero() || r.StartedAt.IsZero() {
				// Without start times the best estimate is the sum.
				merged.Duration += r.Duration
			} else {
				if r.StartedAt.Before(merged.StartedAt) {
					merged.StartedAt = r.StartedAt
				}
				if e := r.StartedAt.Add(r.Duration); e.After(end) {
					end = e
				}
				merged.Duration = end.Sub(merged.StartedAt)
			}
		}
		if r.Baseline != "" && !contains(baselines, r.Baseline) {
			baselines = append(baselines, r.Baseline)
		}
	}
	merged.Baseline = strings.Join(baselines, ", ")
	return merged, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
