package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/report"
)

// reportConfig is the report command's settings (MCPCONFORM_REPORT_*
// variables; the flags win).
type reportConfig struct {
	From            []string `env:"REPORT_FROM" flag:"from"`
	JUnit           string   `env:"REPORT_JUNIT" flag:"junit"`
	TAP             string   `env:"REPORT_TAP" flag:"tap"`
	Markdown        string   `env:"REPORT_MARKDOWN" flag:"markdown"`
	JSON            string   `env:"REPORT_JSON" flag:"json"`
	HTML            string   `env:"REPORT_HTML" flag:"html"`
	Compare         []string `env:"REPORT_COMPARE" flag:"compare"`
	AttachmentsRoot string   `env:"REPORT_ATTACHMENTS_ROOT" flag:"attachments-root"`
	Expectations    string   `env:"REPORT_EXPECTATIONS" flag:"expectations"`
	Merge           bool     `env:"REPORT_MERGE" flag:"merge"`
}

// reportCommand converts results saved by `run --json` into the other
// formats without running anything:
//
//	mcpconform report --from results.json [--from more.json]... [--junit F] [--tap F|-]
//	                  [--markdown F|-] [--json F|-] [--html F|-] [--compare OLD.json]...
//	                  [--attachments-root D] [--expectations F]
//
// Several --from files (one per host, e.g. from a CI matrix) are merged
// into one report with a suite or subtest per host. --expectations applies
// an expectations file again, replacing the one the results were written with.
// It exits 0 once every report is written, 2 for bad input, 3 when a
// report cannot be written; it does not judge the run (run does that).
func reportCommand() *cli.Command {
	formats := strings.Join(report.FormatNames(), ", ")
	return &cli.Command{
		Name:      "report",
		Usage:     "convert saved results (run --json) to " + formats + " without running again",
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
			&cli.StringFlag{Name: "expectations", Usage: "apply this expectations YAML `FILE` instead of the one the results carry"},
			&cli.BoolFlag{Name: "merge", Usage: "combine results of the same host (the shards of one run, --shard I/N) into one; a check in two files is an error"},
		},
		Action: func(c *cli.Context) error {
			var rc reportConfig
			if err := loadNoArgs(c, &rc, "use --from"); err != nil {
				return err
			}
			outs := report.OutputsOf(map[string]string{"junit": rc.JUnit, "tap": rc.TAP, "markdown": rc.Markdown, "json": rc.JSON, "html": rc.HTML})
			return usageOrInfra[conform.UsageError](conform.Convert{From: rc.From, Compare: rc.Compare, Outputs: outs, Expectations: rc.Expectations,
				Merge: rc.Merge, AttachmentsRoot: rc.AttachmentsRoot, Stdin: c.App.Reader, Stdout: c.App.Writer}.Write())
		},
	}
}
