package selftest_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// TestSelfTest proves every check can fail: under each reference-host
// defect exactly the checks the table names go red, and every other check
// stays green; and, at the same time on the same run slots, that no check
// goes red under any legal variation (the specificity pass).
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per defect")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Minute)
	defer cancel()
	env := e2etest.Env(t, 30*time.Second)
	tab, err := selftest.Load()
	if err != nil {
		t.Fatal(err)
	}
	// CI runs the grouped scope: every defect judged on the whole
	// catalogue, several defects per run, each judged on every area in a
	// run where no other defect reaches it (selftest.CoverRuns: what the
	// full scope sees of each defect alone, area by area, in 67 runs
	// instead of 102 on 2026-12-06). The two passes share
	// selftest.RunsAtOnce run slots, the costliest run first.
	// MCPCONFORM_SELFTEST=area runs the area scope (quicker, each defect
	// over its own areas only), =full the full scope (every defect and
	// variation alone over the whole catalogue, as `mcpconform selftest`
	// and the nightly do); MCPCONFORM_SELFTEST_PARALLEL sets the runs at
	// once.
	// The variations are packed the same way (selftest.CoveredSets: 38
	// runs of the whole catalogue, each packed variation seen on every
	// area without another variation that may change a verdict there,
	// against the full scope's 63 alone).
	scope, variations := selftest.ScopeGrouped, selftest.ScopeGrouped
	switch v := os.Getenv("MCPCONFORM_SELFTEST"); v {
	case "", "grouped":
	case "area":
		scope, variations = selftest.ScopeArea, selftest.ScopeArea
	case "full":
		scope, variations = selftest.ScopeFull, selftest.ScopeFull
	default:
		t.Fatalf("MCPCONFORM_SELFTEST=%q: use grouped, area or full", v)
	}
	pool := selftest.NewPool(runsAtOnce(t))
	start := time.Now()
	specificity := make(chan struct{})
	go func() {
		defer close(specificity)
		checkSpecificity(t, ctx, env, variations, pool)
	}()
	// Whatever ends the test (checkCascades may stop it), the specificity
	// pass reports into t first: a goroutine logging into an ended test
	// panics the binary.
	defer func() { <-specificity }()
	s, err := selftest.Run(ctx, tab, selftest.Options{
		Scope: scope,
		Pool:  pool,
		Env:   env,
		Progress: func(r selftest.DefectRun) {
			in := ""
			if r.Group != nil {
				in = fmt.Sprintf(" (judged from runs with %v)", r.Group)
			}
			if r.GroupProblems != nil {
				in = fmt.Sprintf(" (alone: a run of it with others showed %v)", r.GroupProblems)
			}
			t.Logf("%6.1fs %s: %d problem(s)%s", time.Since(start).Seconds(), r.Defect, len(r.Problems), in)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Baseline {
		t.Errorf("defect-free host: %s", p)
	}
	for _, id := range s.Missing {
		t.Errorf("check %s is missing from table.json", id)
	}
	for _, id := range s.Unproven {
		t.Errorf("check %s is unproven", id)
	}
	for _, r := range s.Runs {
		if r.Err != nil {
			t.Errorf("%s: run failed: %v", r.Defect, r.Err)
		}
		for _, p := range r.Problems {
			t.Errorf("%s: %s", r.Defect, p)
		}
	}
	// Declared cascades are tolerated, but every defect's extra reds are
	// shown: the precision figure.
	for d, extra := range s.Extra {
		t.Logf("imprecise: %s also turned red %v", d, extra)
	}
	t.Logf("mutation score %d/%d, precision %d/%d defects (scope %s) in %s", len(s.Proven), s.Checks,
		len(s.Runs)-len(s.Extra), len(s.Runs), scope, time.Since(start).Round(time.Second))
	checkCascades(t, tab, s.Runs)
}

// runsAtOnce is MCPCONFORM_SELFTEST_PARALLEL: how many reference-host
// runs the two passes keep going together (selftest.RunsAtOnce unset).
func runsAtOnce(t *testing.T) int {
	v := os.Getenv("MCPCONFORM_SELFTEST_PARALLEL")
	if v == "" {
		return selftest.RunsAtOnce
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("MCPCONFORM_SELFTEST_PARALLEL=%q: want a number of runs, at least 1", v)
	}
	return n
}
