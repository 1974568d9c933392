package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// A small bench end to end: one check in the full run, a few round trips
// under each policy. It checks the shape and the relations that must hold,
// not timings a loaded machine could break.
func TestBenchMeasuresEverything(t *testing.T) {
	e2etest.Require(t)
	out := filepath.Join(t.TempDir(), "bench.json")
	stdout, stderr, err := benchApp("--run", "lifecycle/initialize-result", "--round-trips", "20", "--evaluates", "20", "--relay-round-trips", "15",
		"--baseline-round-trips", "3", "--baseline-interval", "150ms", "--sample-interval", "100ms", "--json", out)
	if err != nil {
		t.Fatalf("bench: %v\n%s\n%s", err, stdout, stderr)
	}
	says(t, "the report", stdout, "dispatch round trip", "one bare gesture-free evaluate", "fixed 150 ms polling, back to back",
		"full run: 1 checks: 1 passed, 0 failed", "driver start", "host ready", "app ready", "peak memory, Σ PSS", "node cli.js run-driver ×1",
		"the catalogue, side by side", "agentless profile host", "suite time, first start → last end", "longest check 1")
	b, r := readBench(t, out)
	if r.RoundTrip == nil || r.RoundTrip.N != 20 || r.BareEvaluate == nil || r.BareEvaluate.N != 20 || r.PlaywrightEvaluate == nil {
		t.Fatalf("dispatch figures missing: %s", b)
	}
	if r.RoundTrip.MedianMs <= 0 || r.RoundTrip.P99Ms < r.RoundTrip.MedianMs || r.BareEvaluate.MedianMs <= 0 {
		t.Errorf("implausible dispatch figures: %+v %+v", r.RoundTrip, r.BareEvaluate)
	}
	// Back to back, a fixed-interval request waits for the next poll, about
	// one interval; the first may be quicker.
	if r.Fixed == nil || r.Fixed.N != 3 || r.Fixed.MedianMs < 140 || r.FixedRandom == nil || r.FixedRandom.N != 3 {
		t.Errorf("fixed-interval figures: %+v %+v", r.Fixed, r.FixedRandom)
	}
	if _, ok := r.Ratios["roundTripOverBareEvaluate"]; !ok {
		t.Errorf("no ratios in the JSON: %s", b)
	}
	// The relay round trip crosses one tools/call through the host: it is
	// measured, and it cannot beat that tools/call by much.
	if r.RelayRoundTrip == nil || r.RelayRoundTrip.N != 15 || r.HostToolCall == nil || r.HostToolCall.N != 20 || r.RelayRoundTrip.MedianMs <= 0 {
		t.Fatalf("relay figures missing: %s", b)
	}
	if _, ok := r.Ratios["relayOverRoundTrip"]; !ok || !strings.Contains(stdout, "dispatch round trip over the relay") {
		t.Errorf("the relay's ratio or row is missing: %s\n%s", b, stdout)
	}
	fr := r.FullRun
	if fr == nil || fr.Checks != 1 || fr.Passed != 1 {
		t.Fatalf("full run: %+v", fr)
	}
	var names []string
	var sum float64
	for _, p := range fr.Phases {
		names = append(names, p.Name)
		sum += p.Seconds
		if p.Seconds < 0 {
			t.Errorf("phase %s took %v s", p.Name, p.Seconds)
		}
	}
	if got := strings.Join(names, ","); got != "process start,fixture servers,driver start,browser launch,host ready,app ready,tests,teardown,reports" {
		t.Errorf("phases %s", got)
	}
	// The phases follow each other: they add up to the full run's wall time
	// (less the one evaluate that reads the page's load time).
	if sum > fr.WallSeconds+0.01 || sum < fr.WallSeconds-max(0.5, 0.02*fr.WallSeconds) {
		t.Errorf("phases add up to %.2f s, the full run took %.2f s", sum, fr.WallSeconds)
	}
	// A Chromium with a page open is hundreds of MiB and takes CPU; the
	// whole process covers at least the full run.
	if fr.CPUSeconds <= 0.5 || fr.PeakPSSBytes < 100<<20 || fr.PeakRSSBytes < fr.PeakPSSBytes || fr.PeakProcs < 5 {
		t.Errorf("implausible footprint of the full run: %+v", fr.Usage)
	}
	if r.Process.CPUSeconds < fr.CPUSeconds || r.Process.WallSeconds < fr.WallSeconds || r.Process.PeakPSSBytes < fr.PeakPSSBytes {
		t.Errorf("the whole process measured less than its full run: %+v vs %+v", r.Process, fr.Usage)
	}
	// The same check on the agentless profile host: its own phases, which
	// add up to its wall time; the tree's CPU over that span.
	ag := r.Agentless
	if ag == nil {
		t.Fatalf("no agentless run: %s", b)
	}
	if _, ran := ag.CheckSeconds["lifecycle/initialize-result"]; ag.Checks != 1 || ag.Passed != 1 || !ran {
		t.Fatalf("agentless run: %+v", ag)
	}
	names, sum = nil, 0
	for _, p := range ag.Phases {
		names = append(names, p.Name)
		sum += p.Seconds
	}
	if got := strings.Join(names, ","); got != "host setup (profile steps, app shown),tests,teardown,reports" {
		t.Errorf("agentless phases %s", got)
	}
	if sum > ag.WallSeconds+0.01 || sum < ag.WallSeconds-max(0.5, 0.02*ag.WallSeconds) || ag.CPUSeconds <= 0 {
		t.Errorf("agentless: phases add up to %.2f s, wall %.2f s, CPU %.2f s", sum, ag.WallSeconds, ag.CPUSeconds)
	}
	// One driver per process, and at most one version check.
	if r.Spawns["node cli.js run-driver"] != 1 || r.Spawns["node cli.js --version"] > 1 || r.Spawns["chromium (browser)"] < 1 {
		t.Errorf("processes seen: %v", r.Spawns)
	}
}

// --repeat runs the bench in fresh processes with the same settings and
// prints the medians (the real binary, since it re-executes itself).
func TestBenchRepeatRunsFreshProcesses(t *testing.T) {
	e2etest.Require(t)
	out := filepath.Join(t.TempDir(), "median.json")
	stdout, stderr, code := mcpconformExec(t, nil, "bench", "--repeat", "2", "--full-run=false", "--round-trips", "7", "--evaluates", "5",
		"--baseline-round-trips", "0", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Count(stdout, "=== bench run ") != 2 || !strings.Contains(stdout, "=== medians over 2 processes") {
		t.Errorf("two runs and their medians expected:\n%s", stdout)
	}
	b, r := readBench(t, out)
	// The settings reached the children: 7 round trips, no full run, no
	// baseline; and each child was a process of its own.
	if r.RoundTrip == nil || r.RoundTrip.N != 7 || r.FullRun != nil || r.Fixed != nil || len(r.RunLoads) != 2 {
		t.Errorf("median result: %s", b)
	}
	if _, ok := r.Ratios["roundTripOverBareEvaluate"]; !ok {
		t.Errorf("no median ratio: %s", b)
	}
}
