package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts/reference/selftest"
	"github.com/mcpconform/mcpconform/internal/session"
)

func selftestCommand() *cli.Command {
	return &cli.Command{
		Name:  "selftest",
		Usage: "prove every check can fail (once per switchable defect: the mutation score) and that none fails on a host that differs within the spec (once per legal variation: the specificity)",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "parallel", Value: 2, Usage: "defect runs at once"},
			&cli.StringFlag{Name: "scope", Value: string(selftest.ScopeFull), Usage: "`full` runs the whole suite under each defect; area runs only the areas of the checks the defect must turn red (faster, what CI runs)"},
			&cli.BoolFlag{Name: "specificity", Value: true, Usage: "also run the whole catalogue under each legal host variation (serve --list-variations) and demand no FAIL, ERROR or TIMEOUT"},
			&cli.StringFlag{Name: "browser", Usage: "Chromium binary `PATH` [MCPCONFORM_BROWSER]"},
			&cli.StringFlag{Name: "node", Usage: "Node.js binary `PATH` [MCPCONFORM_NODE]"},
		},
		Action: func(c *cli.Context) error {
			if c.Int("parallel") < 1 {
				return usage(fmt.Errorf("--parallel must be at least 1"))
			}
			scope := selftest.Scope(c.String("scope"))
			if scope != selftest.ScopeFull && scope != selftest.ScopeArea {
				return usage(fmt.Errorf("--scope %q: use full or area", scope))
			}
			var bc browserConfig
			if err := load(c, &bc); err != nil {
				return usage(err)
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			tab, err := selftest.Load()
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			sess, err := session.Start(ctx, session.Options{Launch: bridge.Options{Paths: bc.paths()}})
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			defer sess.Close()
			env := sess.Env()
			env.AppTimeout = 30 * time.Second
			w := c.App.Writer
			start := time.Now()
			s, err := selftest.Run(ctx, tab, selftest.Options{
				Env:      env,
				Parallel: c.Int("parallel"),
				Scope:    scope,
				Progress: func(r selftest.DefectRun) {
					mark := "ok  "
					if len(r.Problems) > 0 || r.Err != nil {
						mark = "BAD "
					}
					reds := 0
					for _, cs := range r.Cases {
						// OPTIONAL is how a MAY check shows its defect.
						if cs.Status == "FAIL" || cs.Status == "TIMEOUT" || cs.Status == "OPTIONAL" {
							reds++
						}
					}
					fmt.Fprintf(w, "%s %-36s %d check(s) red\n", mark, r.Defect, reds)
					if r.Err != nil {
						fmt.Fprintf(w, "      run failed: %v\n", r.Err)
					}
					for _, p := range r.Problems {
						fmt.Fprintf(w, "      %s\n", p)
					}
				},
			})
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			for _, p := range s.Baseline {
				fmt.Fprintf(w, "defect-free host: %s\n", p)
			}
			for _, id := range s.Missing {
				fmt.Fprintf(w, "not in the table: %s\n", id)
			}
			for _, id := range s.Unproven {
				fmt.Fprintf(w, "unproven: %s\n", id)
			}
			for _, f := range s.FalseFail {
				fmt.Fprintf(w, "false failure: %s\n", f)
			}
			fmt.Fprintf(w, "mutation score: %d/%d checks proven (%.0f%%), %d false failures, %d defects, scope %s, %s\n",
				len(s.Proven), s.Checks, 100*s.Score(), len(s.FalseFail), len(s.Runs), scope, time.Since(start).Round(time.Second))
			ok := s.OK()
			if c.Bool("specificity") {
				sp, err := runSpecificity(ctx, w, selftest.Options{Env: env, Parallel: c.Int("parallel")})
				if err != nil {
					return &exitError{code: ExitInfra, err: err}
				}
				ok = ok && sp.OK()
			}
			if !ok {
				return &exitError{code: ExitFailures}
			}
			return nil
		},
	}
}

// runSpecificity runs the specificity pass and prints its runs and score.
func runSpecificity(ctx context.Context, w io.Writer, o selftest.Options) (selftest.Specificity, error) {
	start := time.Now()
	sp, err := selftest.RunSpecificity(ctx, selftest.SpecificityOptions{Options: o, Progress: func(r selftest.VariationRun) {
		mark := "ok  "
		if len(r.Problems) > 0 || r.Err != nil {
			mark = "BAD "
		}
		fmt.Fprintf(w, "%s variation %-40s %s\n", mark, r.Name(), r.Tally())
		if r.Err != nil {
			fmt.Fprintf(w, "      run failed: %v\n", r.Err)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "      %s\n", p)
		}
	}})
	if err != nil {
		return sp, err
	}
	for _, f := range sp.FalseFail {
		fmt.Fprintf(w, "false failure: %s\n", f)
	}
	fmt.Fprintf(w, "specificity: %d variations, %d false failures, %s\n", len(sp.Runs), len(sp.FalseFail), time.Since(start).Round(time.Second))
	return sp, nil
}
