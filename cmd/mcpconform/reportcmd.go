package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
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
//	                  [--markdown F|-] [--json F|-] [--html F|-] [--compare OLD.json]...
//	                  [--attachments-root D] [--expectations F]
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
			&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML interop grid (hosts × checks, evidence inline) to `FILE` (- for stdout); a host in several --from is merged (shards) or compared (a newer run)"},
			&cli.StringSliceFlag{Name: "compare", Usage: "with --html: mark the cells that regressed or got fixed since these earlier results `FILE`s"},
			&cli.StringFlag{Name: "attachments-root", Usage: "write JUnit [[ATTACHMENT|path]] lines relative to `DIR`"},
			&cli.StringFlag{Name: "expectations", Usage: "apply this baseline YAML `FILE` instead of the one the results carry"},
			&cli.BoolFlag{Name: "merge", Usage: "combine results of the same host (the shards of one run, --shard I/N) into one; a check in two files is an error"},
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
			for _, name := range []string{"junit", "tap", "markdown", "json", "html"} {
				if v := c.String(name); v != "" {
					outs[name] = v
					if v == "-" {
						stdout++
					}
				}
			}
			if len(outs) == 0 {
				return usage(errors.New("nothing to write: give --junit, --tap, --markdown, --json or --html"))
			}
			if stdout > 1 {
				return usage(errors.New("only one report can go to stdout (-)"))
			}
			var run, page report.Run
			var older []report.Run
			var err error
			stdin := stdinOnce(c.App.Reader) // --html reads the files again
			if _, html := outs["html"]; len(outs) > 1 || !html {
				if run, err = readRuns(froms, stdin(), c.Bool("merge")); err != nil {
					return usage(err)
				}
			}
			if _, html := outs["html"]; html {
				if page, older, err = htmlRuns(froms, c.StringSlice("compare"), stdin()); err != nil {
					return usage(err)
				}
			}
			if path := c.String("expectations"); path != "" {
				exp, err := baseline.Load(path)
				if err != nil {
					return usage(err)
				}
				baseline.Apply(&run, exp)
				baseline.Apply(&page, exp)
			}
			writers := map[string]func(io.Writer) error{
				"junit":    func(w io.Writer) error { return report.WriteJUnit(w, run, junitOptions(c)) },
				"tap":      func(w io.Writer) error { return report.WriteTAP(w, run) },
				"markdown": func(w io.Writer) error { return report.WriteMarkdown(w, run) },
				"json":     func(w io.Writer) error { return report.WriteJSON(w, run) },
				"html": func(w io.Writer) error {
					return writeHTMLReport(w, page, older, htmlEvidenceDirs(froms, c.StringSlice("compare")))
				},
			}
			var errs []error
			for _, name := range []string{"junit", "tap", "markdown", "json", "html"} {
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
// readRuns reads and merges results. With merge, results of the same host
// (the shards of one run) become one host whose checks are the union; a
// check present in two files is an error, so nothing is lost or doubled.
func readRuns(froms []string, stdin io.Reader, merge bool) (report.Run, error) {
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
		var fresh []report.HostRun
		for _, h := range r.Hosts {
			prev, dup := where[h.Host]
			if dup && !merge {
				return merged, fmt.Errorf("host %q is in both %s and %s: merge results of different hosts only, or pass --merge to combine the shards of one run", h.Host, prev, from)
			}
			where[h.Host] = from
			if dup && i > 0 {
				if err := mergeHost(&merged, h, from); err != nil {
					return merged, err
				}
				continue
			}
			fresh = append(fresh, h)
		}
		r.Hosts = fresh
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

// mergeHost adds the checks of shard h to the host of the same name in m.
func mergeHost(m *report.Run, h report.HostRun, from string) error {
	for i := range m.Hosts {
		dst := &m.Hosts[i]
		if dst.Host != h.Host {
			continue
		}
		have := map[string]bool{}
		for _, c := range dst.Cases {
			have[c.ID] = true
		}
		for _, c := range h.Cases {
			if have[c.ID] {
				return fmt.Errorf("check %s of host %q is in more than one file (again in %s): the shards overlap", c.ID, h.Host, from)
			}
		}
		dst.Cases = append(dst.Cases, h.Cases...)
		sort.SliceStable(dst.Cases, func(a, b int) bool { return dst.Cases[a].ID < dst.Cases[b].ID })
		dst.Duration += h.Duration
		dst.Absent = append(dst.Absent, h.Absent...)
		if h.Infra != "" {
			dst.Infra = strings.TrimPrefix(dst.Infra+"; "+h.Infra, "; ")
		}
		if len(dst.HostInfo) == 0 {
			dst.HostInfo, dst.HostName, dst.HostVersion = h.HostInfo, h.HostName, h.HostVersion
		}
		if len(dst.Capabilities) == 0 {
			dst.Capabilities = h.Capabilities
		}
		if len(dst.Context) == 0 {
			dst.Context = h.Context
		}
		return nil
	}
	return fmt.Errorf("host %q: nothing to merge into", h.Host)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
