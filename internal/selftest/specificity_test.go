package selftest_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// checkSpecificity is the specificity pass of TestSelfTest: under every
// legal variation (and the combinations) no check goes red.
func checkSpecificity(t *testing.T, ctx context.Context, env hosts.Env) {
	t.Helper()
	checkSpecificitySets(t, ctx, env, nil)
}

// checkSpecificitySets runs the pass over sets (nil: every set).
func checkSpecificitySets(t *testing.T, ctx context.Context, env hosts.Env, sets [][]string) {
	t.Helper()
	start := time.Now()
	sp, err := selftest.RunSpecificity(ctx, selftest.SpecificityOptions{
		Options: selftest.Options{Env: env, Parallel: 3},
		Sets:    sets,
		Progress: func(r selftest.VariationRun) {
			t.Logf("%6.1fs variation %s: %d problem(s); %s", time.Since(start).Seconds(), r.Name(), len(r.Problems), r.Tally())
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sp.Runs {
		if r.Err != nil {
			t.Errorf("variation %s: run failed: %v", r.Name(), r.Err)
		}
		for _, p := range r.Problems {
			t.Errorf("variation %s: %s", r.Name(), p)
		}
	}
	t.Logf("specificity: %d variations, %d false failures, in %s", len(sp.Runs), len(sp.FalseFail), time.Since(start).Round(time.Second))
}

// The specificity pass on canned runs: every variation set runs the whole
// catalogue (no selection), FAIL, ERROR and TIMEOUT are false failures
// naming variation and check, SKIP and PASS are not (but a SKIP under a
// variation that only slows the host is), and a variation that did not
// show in hostCapabilities is a problem.
func TestSpecificityCatchesFalseFailures(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		vs := h.(*reference.Host).Variations()
		name := strings.Join(vs.List(), "+")
		mu.Lock()
		seen[name] = true
		mu.Unlock()
		if len(o.Selection.Globs) > 0 {
			t.Errorf("%s ran a selection %v, want the whole catalogue", name, o.Selection.Globs)
		}
		caps := map[string]any{"serverTools": map[string]any{}, "message": map[string]any{}}
		st := map[string]protocol.Status{"a/one": protocol.StatusPass, "a/two": protocol.StatusSkip, "a/three": protocol.StatusPass}
		switch name {
		case "no-agent":
			st["a/one"] = protocol.StatusFail
			st["a/three"] = protocol.StatusTimeout
		case "context-minimal":
			st["a/three"] = protocol.StatusError
			st["a/two"] = protocol.StatusBlocked // a legal host misses no behaviour
		case "no-capability-message":
			// the variation did nothing: message still advertised
		default:
			delete(caps, "message")
		}
		b, _ := json.Marshal(caps)
		ctxJSON := `{"theme":"light"}`
		hr := report.HostRun{Capabilities: b, Context: json.RawMessage(ctxJSON)}
		for _, id := range []string{"a/one", "a/two", "a/three"} {
			hr.Cases = append(hr.Cases, report.Case{TestMeta: protocol.TestMeta{ID: id, Clause: protocol.ClauseMust}, Status: st[id], Message: "m"})
		}
		return hr, nil
	}
	sets := [][]string{{"no-agent"}, {"context-minimal"}, {"no-capability-message"}, {"tool-input-partial-none"}, {"context-minimal", "no-agent"}, {"slow-host"}}
	sp, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake}, Sets: sets, Catalogue: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sp.OK() {
		t.Fatal("false failures reported OK")
	}
	want := []string{
		"a/one under no-agent: FAIL m",
		"a/three under context-minimal: ERROR m",
		"a/three under no-agent: TIMEOUT m",
		"a/two under context-minimal: BLOCKED m",
	}
	if got := strings.Join(sp.FalseFail, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("false failures:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if len(seen) != len(sets) || !seen["context-minimal+no-agent"] {
		t.Errorf("ran %v, want every set", seen)
	}
	for _, r := range sp.Runs {
		joined := strings.Join(r.Problems, "\n")
		switch r.Name() {
		case "no-capability-message":
			if !strings.Contains(joined, "hostCapabilities still has message") {
				t.Errorf("a variation without effect went unnoticed: %q", joined)
			}
		case "slow-host":
			// Only slower: the SKIP of a/two (PASS on the plain host) is a
			// verdict that depends on speed, though not red.
			if !strings.Contains(joined, "a/two went SKIP on a host that is only slower") {
				t.Errorf("a SKIP under slow-host went unnoticed: %q", joined)
			}
		case "tool-input-partial-none":
			if joined != "" {
				t.Errorf("clean run has problems: %q", joined)
			}
			if r.Tally() != "2 PASS, 1 SKIP" {
				t.Errorf("tally %q", r.Tally())
			}
		}
	}
	// A run that reports fewer checks than the catalogue proves less.
	short, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake}, Sets: [][]string{{"tool-input-partial-none"}}, Catalogue: 4})
	if err != nil || short.OK() || !strings.Contains(strings.Join(short.Runs[0].Problems, ""), "ran 3 checks, the catalogue has 4") {
		t.Errorf("a short run passed: %v %+v", err, short.Runs)
	}
	if _, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake}, Sets: [][]string{{"nope"}}}); err == nil {
		t.Error("an unknown variation was accepted")
	}
	// The default sets: every variation alone, then the combinations.
	if n := len(selftest.VariationSets()); n != len(reference.Variations)+len(selftest.Combinations) || n < 15 {
		t.Errorf("%d default variation sets", n)
	}
}
