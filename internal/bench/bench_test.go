package bench

import "testing"

func TestMedianResult(t *testing.T) {
	mk := func(rt, bare, cpu, phase float64) *Result {
		return &Result{
			RoundTrip:    &Stat{N: 200, MedianMs: rt, P99Ms: rt * 3},
			BareEvaluate: &Stat{N: 200, MedianMs: bare, P99Ms: bare * 4},
			FullRun:      &FullRun{Checks: 43, Phases: []Phase{{Name: "tests", Seconds: phase}}, Usage: Usage{CPUSeconds: cpu}},
			Process:      Usage{CPUSeconds: cpu + 1},
		}
	}
	m := Median([]*Result{mk(3, 1, 20, 9), mk(9, 2, 10, 7), mk(4, 5, 30, 8)})
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
