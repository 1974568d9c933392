package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/cliconfig"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/soak"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// soakConfig is the soak's settings from MCPCONFORM_SOAK_* variables; the
// flags win.
type soakConfig struct {
	Paths browserConfig
	Cases []string `env:"SOAK_CASES" flag:"case,split"`
	Runs  int      `env:"SOAK_RUNS, default=20" flag:"runs"`
	Load  int      `env:"SOAK_LOAD, default=2" flag:"load"`
	JSON  string   `env:"SOAK_JSON" flag:"json"`
}

func soakCommand() *cli.Command {
	return &cli.Command{
		Name:  "soak",
		Usage: "run hosts again and again with the machine loaded, and report every run whose statuses differ from the first, every stall and every infrastructure failure",
		Description: `Each case runs --runs times in one browser, a fresh host each run, while
--load processes keep that many CPUs busy. A case is a host name (the
third-party hosts by default) or relay-remount: the reference host
re-rendering the suite's View once, reached through the relay. The exit
code is 1 when any run differed from the first, stalled (a View
tools/call the host never answered) or failed for infrastructure.`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "case", Usage: "a host name or relay-remount (repeatable; default: inspector, mcp-ui, appbridge, mcp-use, relay-remount) [MCPCONFORM_SOAK_CASES]"},
			&cli.IntFlag{Name: "runs", Value: 20, Usage: "runs of each case [MCPCONFORM_SOAK_RUNS]"},
			&cli.IntFlag{Name: "load", Value: 2, Usage: "busy processes that load the machine during the soak (0: none) [MCPCONFORM_SOAK_LOAD]"},
			&cli.StringFlag{Name: "json", Usage: "also write the results as JSON to `FILE` [MCPCONFORM_SOAK_JSON]"},
		}, browserFlags(false)...),
		Action: func(c *cli.Context) error {
			var sc soakConfig
			if err := loadNoArgs(c, &sc, ""); err != nil {
				return err
			}
			if sc.Runs < 1 || sc.Load < 0 {
				return usage(fmt.Errorf("--runs must be at least 1 and --load at least 0, got %d and %d", sc.Runs, sc.Load))
			}
			names := sc.Cases
			if len(names) == 0 {
				names = soak.Default
			}
			var cases []soak.Case
			for _, n := range names {
				cs, err := soak.CaseNamed(n, hosts.Params{Environ: cliconfig.Overlay(c, &sc), In: c.App.Reader, Out: c.App.ErrWriter})
				if err != nil {
					return usage(err)
				}
				cases = append(cases, cs)
			}
			ctx, stop := untilSignal(c.Context)
			defer stop()
			logf := func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, "mcpconform: "+format+"\n", args...) }
			sess, err := conform.Start(ctx, conform.Options{Launch: browser.Options{Paths: sc.Paths.paths()}, Hosts: names, NewHost: soak.Builder(cases), Logf: logf})
			if err != nil {
				return usageOrInfra[conform.UsageError](err)
			}
			defer sess.Close()
			if sc.Load > 0 {
				_, unload, err := soak.Load(sc.Load)
				if err != nil {
					return &exitError{code: ExitInfra, err: err}
				}
				defer unload()
			}
			o := soak.Options{Runs: sc.Runs, Run: conform.RunOptions{Runner: runner.Options{Stall: 2 * time.Minute}},
				After: func(cs soak.Case, run int, hr report.HostRun, differences []string) {
					state := hr.Judged().String()
					if hr.Infra != "" {
						state = "infrastructure failure: " + hr.Infra
					}
					fmt.Fprintf(c.App.ErrWriter, "soak %s %d/%d: %s\n", cs.Name, run, sc.Runs, state)
					// Said as it happens: a soak takes hours.
					for _, d := range differences {
						fmt.Fprintf(c.App.ErrWriter, "  differs from run 1: %s\n", d)
					}
				}}
			var results []soak.Result
			for _, cs := range cases {
				results = append(results, soak.Run(ctx, sess, cs, o))
			}
			soak.Print(c.App.Writer, results)
			if sc.JSON != "" {
				b, _ := json.MarshalIndent(results, "", "  ")
				if err := os.WriteFile(sc.JSON, append(b, '\n'), 0o644); err != nil {
					return &exitError{code: ExitInfra, err: err}
				}
			}
			if ctx.Err() != nil {
				return &exitError{code: ExitSIGINT, err: errors.New("interrupted; the table holds the runs that finished")}
			}
			for _, r := range results {
				if !r.OK() {
					return &exitError{code: ExitFailures, err: errors.New("a case did not repeat its first run")}
				}
			}
			return nil
		},
	}
}
