package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/bench"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/cliconfig"
	"github.com/mcpconform/mcpconform/report"
)

// benchConfig is the bench's browser settings from MCPCONFORM_* variables;
// the flags win.
type benchConfig struct {
	Paths     browserConfig
	BrowserWS string `env:"BROWSER_WS" flag:"browser-ws"`
	CDP       string `env:"CDP" flag:"cdp"`
}

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure the dispatch round trip (evaluate and relay bridges) against one bare evaluate and a fixed polling interval, and a full run's phases, CPU and peak memory (reference host)",
		Description: `A full run of the catalogue against the reference host comes first (its
phases, the CPU seconds and peak PSS of this process and all its descendants),
then, in a second reference host in the same browser, the round-trip
diagnostic under the runner's long-poll and under a fixed polling interval,
and bare evaluates in the same app frame; then, in a third, the same round
trip over the relay bridge (the View's own tools/call through the host to
the fixture server, no evaluate). Between the full run and the
dispatch measurements, the same catalogue runs on an agentless profile host
(the reference page without a model, driven only through an env profile's
selectors, as a development UI is) and the two are printed side by side
with their longest checks. Quote medians over several
processes: --repeat 3 runs the bench in 3 fresh processes and prints the
medians of their figures.`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "run the bench in `N` fresh processes and print the medians"},
			&cli.IntFlag{Name: "round-trips", Value: 200, Usage: "requests the round-trip diagnostic parks under the long-poll"},
			&cli.IntFlag{Name: "relay-round-trips", Value: 200, Usage: "requests the round-trip diagnostic parks over the relay bridge, in a third reference host (0 skips it)"},
			&cli.IntFlag{Name: "evaluates", Value: 200, Usage: "bare evaluates (and Playwright evaluates) timed in the app frame"},
			&cli.DurationFlag{Name: "baseline-interval", Value: 800 * time.Millisecond, Usage: "the fixed polling interval of the baseline (the TypeScript runner's)"},
			&cli.IntFlag{Name: "baseline-round-trips", Value: 20, Usage: "requests measured under the fixed interval, back to back and again at a random phase (0 skips the baseline)"},
			&cli.BoolFlag{Name: "full-run", Value: true, Usage: "time a full run of the catalogue first (--full-run=false measures dispatch only)"},
			&cli.BoolFlag{Name: "agentless", Value: true, Usage: "also time the catalogue (--run) on an agentless profile host: the reference page with no model, driven through env-profile selectors, shown side by side with the full run (with --full-run)"},
			&cli.StringSliceFlag{Name: "run", Usage: "checks of the full run, by id `GLOB` (default: all)"},
			&cli.DurationFlag{Name: "sample-interval", Value: 500 * time.Millisecond, Usage: "how often the process tree's CPU and memory are sampled"},
			&cli.DurationFlag{Name: "timeout", Value: 15 * time.Minute, Usage: "limit for the whole bench"},
			&cli.DurationFlag{Name: "app-timeout", Value: 60 * time.Second, Usage: "how long the host may take to show the app"},
			&cli.StringFlag{Name: "json", Usage: "also write the figures as JSON to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "reports", Usage: "keep the full run's reports (" + strings.Join(report.FormatNames(), ", ") + ") and evidence in `DIR`"},
			&cli.BoolFlag{Name: "headed", Usage: "show the browser window"},
		}, browserFlags(true)...),
		Action: func(c *cli.Context) error {
			var bc benchConfig
			if err := loadNoArgs(c, &bc, ""); err != nil {
				return err
			}
			o := bench.Options{
				RoundTrips: c.Int("round-trips"), Evaluates: c.Int("evaluates"), RelayTrips: c.Int("relay-round-trips"),
				Interval: c.Duration("baseline-interval"), BaselineTrips: c.Int("baseline-round-trips"),
				FullRun: c.Bool("full-run"), Agentless: c.Bool("agentless"), Run: c.StringSlice("run"), SampleEvery: c.Duration("sample-interval"),
				AppTimeout: c.Duration("app-timeout"), Reports: c.String("reports"), Version: version,
				Launch: browser.Options{Paths: bc.Paths.paths(),
					Headed: c.Bool("headed"), WSEndpoint: bc.BrowserWS, CDPURL: bc.CDP},
			}
			if err := o.Validate(); err != nil {
				return usage(err)
			}
			if n := c.Int("repeat"); n < 1 || n > 20 {
				return usage(fmt.Errorf("--repeat must be between 1 and 20, got %d", n))
			} else if n > 1 {
				return benchRepeat(c, n)
			}
			ctx, stop := untilSignal(c.Context)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, c.Duration("timeout"))
			defer cancel()
			logf := func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, "mcpconform: "+format+"\n", args...) }
			res, err := bench.Run(ctx, o, logf)
			if res != nil {
				res.Print(c.App.Writer)
				err = errors.Join(err, res.Save(c.String("json"), c.App.Writer))
			}
			if err != nil {
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					err = fmt.Errorf("the bench exceeded --timeout %s: %w", c.Duration("timeout"), err)
				}
				return &exitError{code: ExitInfra, err: err}
			}
			return nil
		},
	}
}

// benchRepeat runs the bench in n fresh processes of this binary with the
// flags given, and prints the medians of their figures.
func benchRepeat(c *cli.Context, n int) error {
	med, err := bench.Repeat(c.Context, n, c.App.Writer, c.App.ErrWriter, func(i int) []string {
		return cliconfig.Args(c, func(name, v string) string {
			if name == "reports" {
				v = filepath.Join(v, fmt.Sprintf("run%d", i))
			}
			return v
		}, "repeat", "json")
	})
	if err == nil {
		med.Print(c.App.Writer)
		err = med.Save(c.String("json"), c.App.Writer)
	}
	if err != nil {
		return &exitError{code: ExitInfra, err: err}
	}
	return nil
}
