package bench

import "testing"

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
