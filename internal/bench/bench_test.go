package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/report"
)

func TestMedianResult(t *testing.T) {
	mk := func(rt, bare, cpu, phase float64) *Result {
		return &Result{
			RoundTrip:    &Stat{N: 200, MedianMs: rt, P99Ms: rt * 3},
			BareEvaluate: &Stat{N: 200, MedianMs: bare, P99Ms: bare * 4},
			FullRun: &FullRun{Checks: 43, Phases: []Phase{{Name: "tests", Seconds: phase}}, Usage: Usage{CPUSeconds: cpu},
				SuiteSeconds: phase - 1, CheckSeconds: map[string]float64{"a/slow": phase - 2, "a/quick": 0.5, "a/mid": 1}},
			Process: Usage{CPUSeconds: cpu + 1},
		}
	}
	m := Median([]*Result{mk(3, 1, 20, 9), mk(9, 2, 10, 7), mk(4, 5, 30, 8)})
	// Each check's time and the sum are medians too; the longest come
	// longest first.
	if m.FullRun.SuiteSeconds != 7 || m.FullRun.CheckSeconds["a/slow"] != 6 {
		t.Errorf("suite %v, a/slow %v: want the medians 7 and 6", m.FullRun.SuiteSeconds, m.FullRun.CheckSeconds["a/slow"])
	}
	if l := m.FullRun.Longest(2); len(l) != 2 || l[0] != (CheckTime{"a/slow", 6}) || l[1] != (CheckTime{"a/mid", 1}) {
		t.Errorf("longest two %v, want a/slow 6 s, a/mid 1 s", l)
	}
	if m.RoundTrip.MedianMs != 4 || m.RoundTrip.P99Ms != 12 || m.BareEvaluate.MedianMs != 2 || m.BareEvaluate.P99Ms != 8 {
		t.Errorf("medians %+v %+v", m.RoundTrip, m.BareEvaluate)
	}
	if m.FullRun.CPUSeconds != 20 || m.FullRun.Phases[0].Seconds != 8 || m.Process.CPUSeconds != 21 || m.FullRun.Checks != 43 {
		t.Errorf("full-run medians %+v, process %+v", m.FullRun, m.Process)
	}
	// Per-run ratios 3, 4.5 and 0.8: the median ratio is 3, although the
	// ratio of the medians would be 2.
	if q := m.Ratios[ratioRoundTripOverBare]; q != 3 {
		t.Errorf("median ratio %v, want 3", q)
	}
}

// The agentless profile host's catalogue gets its medians the same way,
// each from its own runs (not the reference host's), and is left out of
// the median when a run lacks it.
func TestMedianAgentlessRun(t *testing.T) {
	mk := func(ref, ag float64) *Result {
		cat := func(s float64) *FullRun {
			return &FullRun{Checks: 85, Phases: []Phase{{Name: "tests", Seconds: s}}, SuiteSeconds: s, Usage: Usage{CPUSeconds: s / 2, WallSeconds: s + 1},
				CheckSeconds: map[string]float64{"security/no-direct-download": s / 10}}
		}
		return &Result{FullRun: cat(ref), Agentless: cat(ag)}
	}
	m := Median([]*Result{mk(24, 30), mk(26, 20), mk(25, 25)})
	if m.FullRun.SuiteSeconds != 25 || m.Agentless.SuiteSeconds != 25 || m.Agentless.CPUSeconds != 12.5 || m.Agentless.WallSeconds != 26 {
		t.Errorf("medians: reference %+v, agentless %+v", m.FullRun, m.Agentless)
	}
	if l := m.Agentless.Longest(1); len(l) != 1 || l[0] != (CheckTime{"security/no-direct-download", 2.5}) {
		t.Errorf("agentless longest %v", l)
	}
	partial := mk(1, 1)
	partial.Agentless = nil
	if m := Median([]*Result{mk(24, 30), partial}); m.Agentless != nil || m.FullRun == nil {
		t.Errorf("a run without the agentless catalogue: want no agentless median, got %+v", m.Agentless)
	}
	var b strings.Builder
	m.Print(&b)
	for _, want := range []string{"the catalogue, side by side", "25.00 s (target ≤ 8s: MISSES)", "25.00 s (target ≤ 15s: MISSES)", "longest check 1 "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the printout lacks %q:\n%s", want, b.String())
		}
	}
	// Each column its own longest check; no rows past the checks run.
	if strings.Count(b.String(), "security/no-direct-download 2.50 s") != 2 || strings.Contains(b.String(), "longest check 2") {
		t.Errorf("the longest checks, side by side:\n%s", b.String())
	}
}

// The suite time is the span of the checks: a check that waited beside
// the next ones (t.detach) counts once, not on top of theirs; the sum is
// kept apart. Without the checks' starts it is the sum.
func TestSuiteTimeIsTheChecksSpan(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	c := func(id string, start, secs float64) report.Case {
		cs := report.Case{StartedAt: at(start), Duration: time.Duration(secs * float64(time.Second))}
		cs.ID = id
		return cs
	}
	var fr FullRun
	fr.count(report.HostRun{Cases: []report.Case{c("t/throttled", 1, 2), c("t/next", 1.5, 0.5), c("t/after", 2, 0.5), c("t/first", 0, 1)}})
	if fr.SuiteSeconds != 3 || fr.SummedSeconds != 4 {
		t.Errorf("suite %v s, summed %v s: want the span 3 s (0 to 3) and the sum 4 s", fr.SuiteSeconds, fr.SummedSeconds)
	}
	// A check the runner never saw running took 0 ms: no start, no change.
	instant := c("t/instant", 0, 0)
	instant.StartedAt = time.Time{}
	fr = FullRun{}
	fr.count(report.HostRun{Cases: []report.Case{c("t/a", 1, 2), instant}})
	if fr.SuiteSeconds != 2 {
		t.Errorf("suite %v s with an instant check without a start, want the span 2 s", fr.SuiteSeconds)
	}
	fr = FullRun{}
	instant.Duration = time.Second
	fr.count(report.HostRun{Cases: []report.Case{instant}})
	if fr.SuiteSeconds != 1 {
		t.Errorf("suite %v s with no check's start known, want the sum 1 s", fr.SuiteSeconds)
	}
}
