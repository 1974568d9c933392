package selftest_test

import (
	"context"
	"errors"
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

func TestPrintDefectRunCountsRedChecks(t *testing.T) {
	cases := []report.Case{{Status: protocol.StatusFail}, {Status: protocol.StatusTimeout}, {Status: protocol.StatusOptional}, {Status: protocol.StatusPass}, {Status: protocol.StatusSkip}}
	var b strings.Builder
	selftest.PrintDefectRun(&b, selftest.DefectRun{Defect: "no-visibility-guard", Cases: cases})
	if got := b.String(); !strings.HasPrefix(got, "ok   no-visibility-guard") || !strings.HasSuffix(got, " 3 check(s) red\n") {
		t.Errorf("clean run printed %q", got)
	}
	b.Reset()
	selftest.PrintDefectRun(&b, selftest.DefectRun{Defect: "d", Problems: []string{"x stayed green"}, Err: errors.New("boom")})
	want := "      run failed: boom\n      x stayed green\n"
	if got := b.String(); !strings.HasPrefix(got, "BAD  d") || !strings.HasSuffix(got, " 0 check(s) red\n"+want) {
		t.Errorf("bad run printed %q", got)
	}
}

func TestPrintVariationRun(t *testing.T) {
	var b strings.Builder
	r := selftest.VariationRun{Variations: []string{"no-agent", "no-theme"}, Problems: []string{"did not take effect"}}
	selftest.PrintVariationRun(&b, r)
	if got := b.String(); !strings.HasPrefix(got, "BAD  variation no-agent+no-theme") || !strings.Contains(got, r.Tally()) || !strings.HasSuffix(got, "\n      did not take effect\n") {
		t.Errorf("printed %q", got)
	}
}

func TestSummaryAndSpecificityReport(t *testing.T) {
	s := selftest.Summary{Checks: 4, Proven: []string{"a", "b"}, Unproven: []string{"c"}, Missing: []string{"d"},
		Baseline: []string{"e failed"}, FalseFail: []string{"f under g: FAIL m"}, Runs: make([]selftest.DefectRun, 3),
		Extra: map[string][]string{"g": {"f", "h"}}}
	var b strings.Builder
	s.Report(&b, selftest.ScopeArea, 2400*time.Millisecond)
	want := "defect-free host: e failed\nnot in the table: d\nunproven: c\nfalse failure: f under g: FAIL m\n" +
		"mutation score: 2/4 checks proven (50%), 1 false failures, 3 defects, scope area, 2s\n" +
		"imprecise: g also turned red f, h\n" +
		"precision: 2/3 defects turn red only the checks they are meant to break (67%), 2 other red checks\n"
	if got := b.String(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	b.Reset()
	sp := selftest.Specificity{Runs: make([]selftest.VariationRun, 2), FalseFail: []string{"h under no-agent: TIMEOUT"}}
	sp.Report(&b, 61*time.Second)
	if got, want := b.String(), "false failure: h under no-agent: TIMEOUT\nspecificity: 2 variations, 1 false failures, 1m1s\n"; got != want {
		t.Errorf("specificity:\n%s\nwant:\n%s", got, want)
	}
}

// RunAndReport prints a line per defect run and the score, and with
// specificity a line per variation and its score; a problem in either pass
// makes it not ok.
func TestRunAndReport(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{"ping-unanswered": {Red: []string{"a/one"}}}}
	fake := func(_ context.Context, h hosts.Host, _ runner.Options) (report.HostRun, error) {
		st := protocol.StatusPass
		if h.(*reference.Host).Defects()["ping-unanswered"] {
			st = protocol.StatusFail
		}
		return report.HostRun{Cases: []report.Case{{TestMeta: protocol.TestMeta{ID: "a/one", Clause: protocol.ClauseMust}, Status: st}}}, nil
	}
	var b strings.Builder
	ok, err := selftest.RunAndReport(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeFull}, false, &b)
	out := b.String()
	if err != nil || !ok || !strings.Contains(out, "ok   ping-unanswered") || !strings.Contains(out, "mutation score: 1/1 checks proven (100%), 0 false failures") ||
		!strings.Contains(out, "\nprecision: ") || strings.Contains(out, "specificity:") {
		t.Fatalf("ok %v, err %v:\n%s", ok, err, out)
	}
	// The specificity pass counts against the whole catalogue, which this
	// fake's one check is not: every variation run is BAD.
	b.Reset()
	ok, err = selftest.RunAndReport(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeFull}, true, &b)
	out = b.String()
	if err != nil || ok || !strings.Contains(out, "BAD  variation no-agent") || !strings.Contains(out, "\nspecificity: ") {
		t.Fatalf("ok %v, err %v:\n%s", ok, err, out)
	}
}

// mcpconform selftest runs the two passes at the same time on one pool of
// run slots: never more than --parallel runs at once, and a variation run
// goes while defect runs are still going (the pass with runs left keeps
// every slot busy).
func TestRunAndReportSharesTheSlots(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{"ping-unanswered": {Red: []string{"a/one"}}}}
	var mu sync.Mutex
	inFlight, most, defectsInFlight := 0, 0, 0
	overlapped := false
	// The first defect run lasts until a variation run has started: with
	// shared slots one starts beside it (the other defect runs go on in
	// the other slots); passes that run one after the other start none
	// until it ends, which is then after the bound. Not a race on how fast
	// this machine starts goroutines: CI27 failed the 2 ms sleep this
	// replaces.
	varStarted := make(chan struct{})
	var once sync.Once
	waited := false
	fake := func(_ context.Context, h hosts.Host, _ runner.Options) (report.HostRun, error) {
		rh := h.(*reference.Host)
		defect := len(rh.Defects()) > 0
		variation := len(rh.Variations()) > 0
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		first := false
		if defect {
			defectsInFlight++
			first, waited = !waited, true
		} else if variation && defectsInFlight > 0 {
			overlapped = true
		}
		mu.Unlock()
		if variation {
			once.Do(func() { close(varStarted) })
		}
		if first {
			select {
			case <-varStarted:
			case <-time.After(10 * time.Second):
			}
		}
		mu.Lock()
		inFlight--
		if defect {
			defectsInFlight--
		}
		mu.Unlock()
		return report.HostRun{}, nil
	}
	var b strings.Builder
	if _, err := selftest.RunAndReport(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeFull, Parallel: 3}, true, &b); err != nil {
		t.Fatal(err)
	}
	// The defect-free run takes a slot too.
	if most > 3 {
		t.Errorf("%d runs at once with --parallel 3", most)
	}
	if !overlapped {
		t.Error("no variation run went while defect runs were going: the passes ran one after the other")
	}
}
