package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/selftest"
)

func selftestCommand() *cli.Command {
	return &cli.Command{
		Name:  "selftest",
		Usage: "prove every check can fail (once per switchable defect: the mutation score) and that none fails on a host that differs within the spec (once per legal variation: the specificity)",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "parallel", Value: selftest.RunsAtOnce, Usage: "reference-host runs at once (the mutation and the specificity pass share them)"},
			&cli.StringFlag{Name: "scope", Value: string(selftest.ScopeFull), Usage: "`full` runs the whole suite under each defect alone, and under each variation; grouped (what CI runs) sees what full sees of each defect and variation in fewer runs: several per run, each judged on every area where it is the run's only actor (selftest.CoverRuns, selftest.CoveredSets); area runs each defect over the areas of the checks it must turn red only, and the variations in groups over theirs (quickest)"},
			&cli.BoolFlag{Name: "specificity", Value: true, Usage: "also run the whole catalogue under each legal host variation (serve --list-variations) and demand no FAIL, ERROR or TIMEOUT"},
			&cli.Float64Flag{Name: "cpu-throttle", Usage: "slow the reference host's page and its frames `N` times (Chrome DevTools CPU throttling), as a loaded machine does: every verdict must stay the same (docs/audit-timing.md)"},
		}, browserFlags(false)...),
		Action: func(c *cli.Context) error {
			if c.Int("parallel") < 1 {
				return usage(fmt.Errorf("--parallel must be at least 1"))
			}
			if r := c.Float64("cpu-throttle"); r != 0 && r < 1 {
				return usage(fmt.Errorf("--cpu-throttle %g: use a rate of at least 1 (1 is no throttling)", r))
			}
			scope := selftest.Scope(c.String("scope"))
			if !slices.Contains(selftest.Scopes, scope) {
				return usage(fmt.Errorf("--scope %q: use full, grouped or area", scope))
			}
			var bc browserConfig
			if err := load(c, &bc); err != nil {
				return usage(err)
			}
			ctx, stop := untilSignal(c.Context)
			defer stop()
			tab, err := selftest.Load()
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			sess, err := conform.Start(ctx, conform.Options{Launch: browser.Options{Paths: bc.paths()}})
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			defer sess.Close()
			env := sess.Env()
			env.AppTimeout = 30 * time.Second
			env.CPUThrottle = c.Float64("cpu-throttle")
			ok, err := selftest.RunAndReport(ctx, tab, selftest.Options{Env: env, Parallel: c.Int("parallel"), Scope: scope}, c.Bool("specificity"), c.App.Writer)
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			if !ok {
				return &exitError{code: ExitFailures}
			}
			return nil
		},
	}
}
