package selftest_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// TestSelfTest proves every check can fail: under each reference-host
// defect exactly the checks the table names go red, and every other check
// stays green.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per defect")
	}
	// One run per defect (64 of them): well past go test's default 10 m,
	// so run it with -timeout (see .ci/run).
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Minute)
	defer cancel()
	env := e2etest.Env(t, 30*time.Second)
	tab, err := selftest.Load()
	if err != nil {
		t.Fatal(err)
	}
	// CI proves every check with each defect's areas only (a few minutes);
	// MCPCONFORM_SELFTEST=full runs the whole suite under every defect, as
	// `mcpconform selftest` does by default.
	scope := selftest.ScopeArea
	if os.Getenv("MCPCONFORM_SELFTEST") == "full" {
		scope = selftest.ScopeFull
	}
	start := time.Now()
	s, err := selftest.Run(ctx, tab, selftest.Options{
		Scope:    scope,
		Parallel: 3,
		Env:      env,
		Progress: func(r selftest.DefectRun) {
			in := ""
			if r.Group != nil {
				in = fmt.Sprintf(" (judged from one run of %v)", r.Group)
			}
			if r.GroupProblems != nil {
				in = fmt.Sprintf(" (alone: its group's run showed %v)", r.GroupProblems)
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
	checkSpecificity(t, ctx, env, scope)
}
