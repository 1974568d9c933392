package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpconform/mcpconform/report"
)

// Stat is the median and p99 of a sample, in milliseconds.
type Stat struct {
	N        int     `json:"n"`
	MedianMs float64 `json:"medianMs"`
	P99Ms    float64 `json:"p99Ms"`
}

func statOf(ms []float64) Stat {
	return Stat{N: len(ms), MedianMs: Quantile(ms, 0.5), P99Ms: Quantile(ms, 0.99)}
}

// Phase is one step of the full run.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Usage is the process tree's footprint over a span. CPUSeconds leaves out
// the sampler's own CPU (SamplerCPUSeconds), which the tree also spent.
type Usage struct {
	WallSeconds       float64 `json:"wallSeconds"`
	CPUSeconds        float64 `json:"cpuSeconds"`
	SamplerCPUSeconds float64 `json:"samplerCpuSeconds"`
	PeakPSSBytes      int64   `json:"peakPssBytes"`
	PeakRSSBytes      int64   `json:"peakRssBytes"`
	PeakProcs         int     `json:"peakProcesses"`
}

// Result is everything one bench process measured.
type Result struct {
	Browser string    `json:"browser"`
	Remote  string    `json:"remote,omitempty"`
	CPUs    int       `json:"cpus"`
	LoadAvg []float64 `json:"loadAverage,omitempty"`
	// RunLoads are the load averages of the runs behind a median result.
	RunLoads [][]float64 `json:"runLoadAverages,omitempty"`
	Headless bool        `json:"headless"`

	RoundTrip          *Stat   `json:"roundTrip,omitempty"`
	BareEvaluate       *Stat   `json:"bareEvaluate,omitempty"`
	PlaywrightEvaluate *Stat   `json:"playwrightEvaluate,omitempty"`
	IntervalMs         float64 `json:"baselineIntervalMs,omitempty"`
	Fixed              *Stat   `json:"fixedIntervalBackToBack,omitempty"`
	FixedRandom        *Stat   `json:"fixedIntervalRandomPhase,omitempty"`
	LongPollWallMs     float64 `json:"longPollWallMs,omitempty"`
	// LongPollPolls is how many polls the runner made for the long-poll
	// round trips (one per request at best; more means polls that came
	// back with nothing new).
	LongPollPolls int `json:"longPollPolls,omitempty"`
	// RelayRoundTrip is the same round trip over the relay bridge (the
	// View's tools/call through the host), RelayPolls the runner's polls
	// for it.
	RelayRoundTrip *Stat `json:"relayRoundTrip,omitempty"`
	RelayPolls     int   `json:"relayPolls,omitempty"`
	// HostToolCall is one tools/call from the View through the host to
	// the fixture server and back: the floor of a relay round trip.
	HostToolCall *Stat `json:"hostToolCall,omitempty"`

	FullRun *FullRun `json:"fullRun,omitempty"`
	// Agentless is the same catalogue on an agentless profile host (the
	// reference page with no model, through an env profile's selectors):
	// its phases run from host setup to reports written, and its usage
	// has the CPU of that span only.
	Agentless *FullRun `json:"agentlessRun,omitempty"`
	// Process covers this whole process: the full run, the dispatch
	// measurements and the cleanup.
	Process Usage `json:"process"`
	// RusageCPUSeconds is getrusage(SELF)+getrusage(CHILDREN) at the end, a
	// cross-check of Process.CPUSeconds (it counts only waited-for
	// descendants).
	RusageCPUSeconds float64 `json:"rusageCpuSeconds"`
	Samples          int     `json:"samples"`
	// Spawns counts the processes the sampler saw in the tree, by kind.
	Spawns map[string]int `json:"spawns"`
	// Ratios of medians: round trip over bare evaluate, fixed interval
	// over long-poll (written to JSON only).
	Ratios map[string]float64 `json:"ratios,omitempty"`
}

// FullRun is one full run of the selected catalogue.
type FullRun struct {
	Checks  int     `json:"checks"`
	Passed  int     `json:"passed"`
	Failed  int     `json:"failed"`
	Skipped int     `json:"skipped"`
	Phases  []Phase `json:"phases"`
	// SuiteSeconds is the suite's time: from the first check's start to
	// the last one's end (without setup, teardown and the preludes before
	// the first check). A detached check (t.detach) waits beside the next
	// ones, so this is less than SummedSeconds, the sum of the checks' own
	// durations (until 2026-12-05 the suite time was that sum: with checks
	// one after the other the two differed by the gaps between checks).
	// CheckSeconds is each check's duration.
	SuiteSeconds  float64            `json:"suiteSeconds"`
	SummedSeconds float64            `json:"summedSeconds"`
	CheckSeconds  map[string]float64 `json:"checkSeconds,omitempty"`
	Usage
}

// CheckTime is one check's duration.
type CheckTime struct {
	ID      string
	Seconds float64
}

// Longest are the n checks that took longest, longest first (ties by id).
func (fr *FullRun) Longest(n int) []CheckTime {
	out := make([]CheckTime, 0, len(fr.CheckSeconds))
	for id, s := range fr.CheckSeconds {
		out = append(out, CheckTime{id, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Seconds != out[j].Seconds {
			return out[i].Seconds > out[j].Seconds
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(n, len(out))]
}

// longestShown is how many of the longest checks the bench prints.
const longestShown = 5

func (r *Result) ratio(a, b *Stat) float64 {
	if a == nil || b == nil || b.MedianMs <= 0 {
		return math.NaN()
	}
	return a.MedianMs / b.MedianMs
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func verdict(ok bool) string {
	if ok {
		return "meets"
	}
	return "MISSES"
}

func (r *Result) Print(w io.Writer) {
	r.computeRatios()
	q := func(name string) float64 {
		if v, ok := r.Ratios[name]; ok {
			return v
		}
		return math.NaN()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	where := "local " + r.Browser
	if r.Remote != "" {
		where = r.Browser + " at " + r.Remote
	}
	mode := "headless"
	if !r.Headless {
		mode = "headed"
	}
	load := fmt.Sprint(r.LoadAvg)
	if len(r.RunLoads) > 0 {
		load = fmt.Sprint(r.RunLoads) + " (at the start of each run)"
	}
	fmt.Fprintf(tw, "mcpconform bench: reference host, %s (%s), %d CPUs, load average %s\n", where, mode, r.CPUs, load)
	if len(r.RunLoads) > 0 {
		fmt.Fprintf(tw, "(each figure is the median over the runs; each ratio the median of the runs' ratios)\n")
	}
	fmt.Fprintln(tw)
	row := func(name string, s *Stat, note string) {
		if s != nil {
			fmt.Fprintf(tw, "%s\tn=%d\tmedian %.2f ms\tp99 %.2f ms\t%s\n", name, s.N, s.MedianMs, s.P99Ms, note)
		}
	}
	if r.RoundTrip != nil && r.BareEvaluate != nil {
		rt := q(ratioRoundTripOverBare)
		row("dispatch round trip (long-poll; parked → host → result back, in the page)", r.RoundTrip,
			fmt.Sprintf("%.2f× one bare evaluate (target ≤ %.0f×: %s)", rt, targetRoundTripOverBare, verdict(rt <= targetRoundTripOverBare)))
		row("one bare gesture-free evaluate in the same app frame (the floor)", r.BareEvaluate, "")
	}
	if r.RelayRoundTrip != nil {
		rr := q(ratioRelayOverRoundTrip)
		row("dispatch round trip over the relay (the View's tools/call through the host, no evaluate)", r.RelayRoundTrip,
			fmt.Sprintf("%.2f× the evaluate round trip (target ≤ %.0f×: %s), %.2f× one bare evaluate", rr, targetRelayOverRoundTrip, verdict(rr <= targetRelayOverRoundTrip), q(ratioRelayOverBare)))
		row("one tools/call from the View through the host and back (the relay's floor)", r.HostToolCall,
			fmt.Sprintf("the relay round trip is %.2f× it", q(ratioRelayOverToolCall)))
	}
	row("one Playwright frame.Evaluate in the same frame (for comparison)", r.PlaywrightEvaluate, "")
	if r.Fixed != nil {
		row(fmt.Sprintf("round trip, fixed %.0f ms polling, back to back", r.IntervalMs), r.Fixed, fmt.Sprintf("%.0f× the long-poll", q(ratioFixedOverLong)))
		row(fmt.Sprintf("round trip, fixed %.0f ms polling, random phase", r.IntervalMs), r.FixedRandom, fmt.Sprintf("%.0f× the long-poll", q(ratioRandomOverLong)))
	}
	tw.Flush()
	if r.LongPollPolls > 0 && r.RoundTrip != nil {
		fmt.Fprintf(w, "(the runner made %d polls for %d long-poll round trips)\n", r.LongPollPolls, r.RoundTrip.N)
	}
	if r.RelayPolls > 0 && r.RelayRoundTrip != nil {
		fmt.Fprintf(w, "(over the relay, %d polls for %d round trips)\n", r.RelayPolls, r.RelayRoundTrip.N)
	}
	if fr := r.FullRun; fr != nil {
		fmt.Fprintf(w, "\nfull run: %d checks: %d passed, %d failed, %d skipped\n", fr.Checks, fr.Passed, fr.Failed, fr.Skipped)
		for _, p := range fr.Phases {
			fmt.Fprintf(tw, "  %s\t%.2f s\n", p.Name, p.Seconds)
		}
		fmt.Fprintf(tw, "  total, process start → host torn down\t%.2f s\t(target < %s: %s)\n", fr.WallSeconds, targetFullRun, verdict(fr.WallSeconds < targetFullRun.Seconds()))
		fmt.Fprintf(tw, "  suite time, first check's start → last one's end\t%.2f s\n", fr.SuiteSeconds)
		fmt.Fprintf(tw, "  the checks' own time, summed\t%.2f s\n", fr.SummedSeconds)
		for i, c := range fr.Longest(longestShown) {
			fmt.Fprintf(tw, "  longest check %d: %s\t%.2f s\n", i+1, c.ID, c.Seconds)
		}
		fmt.Fprintf(tw, "  CPU, process tree (without the sampler's %.2f s)\t%.2f s\n", fr.SamplerCPUSeconds, fr.CPUSeconds)
		fmt.Fprintf(tw, "  peak memory, Σ PSS of the tree\t%s\t(target < 1 GiB: %s; Σ RSS %s; %d processes)\n", mib(fr.PeakPSSBytes), verdict(fr.PeakPSSBytes < targetPeakPSS), mib(fr.PeakRSSBytes), fr.PeakProcs)
		tw.Flush()
	}
	if r.Agentless != nil {
		r.printSideBySide(w)
	}
	p := r.Process
	fmt.Fprintf(w, "\nwhole process (full run, dispatch measurements, cleanup): %.2f s wall, %.2f s CPU without the sampler, peak Σ PSS %s (Σ RSS %s, %d processes)\n",
		p.WallSeconds, p.CPUSeconds, mib(p.PeakPSSBytes), mib(p.PeakRSSBytes), p.PeakProcs)
	fmt.Fprintf(w, "sampler: %d samples, %.2f s CPU of its own; getrusage(self+children) at exit: %.2f s (waited-for processes only)\n", r.Samples, p.SamplerCPUSeconds, r.RusageCPUSeconds)
	kinds := make([]string, 0, len(r.Spawns))
	for k := range r.Spawns {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, r.Spawns[k]))
	}
	fmt.Fprintf(w, "processes seen in the tree (sampled; shorter-lived ones can be missed): %s\n", strings.Join(parts, ", "))
	if r.Remote != "" {
		fmt.Fprintf(w, "the remote browser's processes are not in this tree: CPU and memory above leave it out\n")
	}
}

// printSideBySide prints the catalogue on the reference host and on the
// agentless profile host, column by column, against issue #27's targets
// for the suite time (first check's start to last one's end).
func (r *Result) printSideBySide(w io.Writer) {
	ref, ag := r.FullRun, r.Agentless
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	col := func(fr *FullRun, f func(*FullRun) string) string {
		if fr == nil {
			return "(not run)"
		}
		return f(fr)
	}
	line := func(name string, f func(*FullRun) string) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, col(ref, f), col(ag, f))
	}
	fmt.Fprintf(w, "\nthe catalogue, side by side\n")
	fmt.Fprintf(tw, "  \treference host (Go driver)\tagentless profile host (no model, env-profile selectors)\n")
	line("checks", func(fr *FullRun) string {
		return fmt.Sprintf("%d: %d passed, %d failed, %d skipped", fr.Checks, fr.Passed, fr.Failed, fr.Skipped)
	})
	fmt.Fprintf(tw, "  wall\t%s\t%s\n", col(ref, func(fr *FullRun) string {
		return fmt.Sprintf("%.2f s (process start → reports written)", fr.WallSeconds)
	}),
		col(ag, func(fr *FullRun) string {
			return fmt.Sprintf("%.2f s (host setup → reports written)", fr.WallSeconds)
		}))
	suite := func(target time.Duration) func(*FullRun) string {
		return func(fr *FullRun) string {
			return fmt.Sprintf("%.2f s (target ≤ %s: %s)", fr.SuiteSeconds, target, verdict(fr.SuiteSeconds <= target.Seconds()))
		}
	}
	fmt.Fprintf(tw, "  suite time, first start → last end\t%s\t%s\n", col(ref, suite(targetSuiteReference)), col(ag, suite(targetSuiteAgentless)))
	fmt.Fprintf(tw, "  CPU, process tree\t%s\t%s\n", col(ref, func(fr *FullRun) string { return fmt.Sprintf("%.2f s (since process start)", fr.CPUSeconds) }),
		col(ag, func(fr *FullRun) string { return fmt.Sprintf("%.2f s (this run's span)", fr.CPUSeconds) }))
	for i := range longestShown {
		nth := func(fr *FullRun) string {
			l := fr.Longest(longestShown)
			if i >= len(l) {
				return ""
			}
			return fmt.Sprintf("%s %.2f s", l[i].ID, l[i].Seconds)
		}
		if (ref == nil || nth(ref) == "") && (ag == nil || nth(ag) == "") {
			break
		}
		line(fmt.Sprintf("longest check %d", i+1), nth)
	}
}

// Ratio names.
const (
	ratioRoundTripOverBare  = "roundTripOverBareEvaluate"
	ratioFixedOverLong      = "fixedBackToBackOverLongPoll"
	ratioRandomOverLong     = "fixedRandomPhaseOverLongPoll"
	ratioPlaywrightOverBare = "playwrightOverBareEvaluate"
	ratioRelayOverRoundTrip = "relayOverRoundTrip"
	ratioRelayOverBare      = "relayOverBareEvaluate"
	ratioRelayOverToolCall  = "relayOverHostToolCall"
)

// computeRatios fills Ratios from one run's medians (a median result keeps
// the medians of its runs' ratios instead).
func (r *Result) computeRatios() {
	if r.Ratios != nil {
		return
	}
	r.Ratios = map[string]float64{}
	for name, q := range map[string]float64{
		ratioRoundTripOverBare:  r.ratio(r.RoundTrip, r.BareEvaluate),
		ratioFixedOverLong:      r.ratio(r.Fixed, r.RoundTrip),
		ratioRandomOverLong:     r.ratio(r.FixedRandom, r.RoundTrip),
		ratioPlaywrightOverBare: r.ratio(r.PlaywrightEvaluate, r.BareEvaluate),
		ratioRelayOverRoundTrip: r.ratio(r.RelayRoundTrip, r.RoundTrip),
		ratioRelayOverBare:      r.ratio(r.RelayRoundTrip, r.BareEvaluate),
		ratioRelayOverToolCall:  r.ratio(r.RelayRoundTrip, r.HostToolCall),
	} {
		if !math.IsNaN(q) && !math.IsInf(q, 0) {
			r.Ratios[name] = q
		}
	}
}

// Save writes r as JSON to path: nothing for "", stdout for "-" (as
// every report), else the file, atomically.
func (r *Result) Save(path string, stdout io.Writer) error {
	switch path {
	case "":
		return nil
	case report.Stdout:
		return WriteJSON(stdout, r)
	default:
		return report.WriteFile(path, func(w io.Writer) error { return WriteJSON(w, r) })
	}
}

// WriteJSON writes r as indented JSON, its ratios computed.
func WriteJSON(w io.Writer, r *Result) error {
	r.computeRatios()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// medianResult is the per-figure median of several runs.
func Median(runs []*Result) *Result {
	m := *runs[0]
	m.LoadAvg, m.RunLoads = nil, nil
	// Ratios pair figures taken under the same conditions: the median of
	// the runs' ratios, not the ratio of the medians.
	m.Ratios = map[string]float64{}
	for _, name := range []string{ratioRoundTripOverBare, ratioFixedOverLong, ratioRandomOverLong, ratioPlaywrightOverBare, ratioRelayOverRoundTrip, ratioRelayOverBare, ratioRelayOverToolCall} {
		var xs []float64
		for _, r := range runs {
			r.computeRatios()
			if v, ok := r.Ratios[name]; ok {
				xs = append(xs, v)
			}
		}
		if len(xs) > 0 {
			m.Ratios[name] = Quantile(xs, 0.5)
		}
	}
	for _, r := range runs {
		m.RunLoads = append(m.RunLoads, r.LoadAvg)
	}
	m.LongPollPolls = int(Quantile(func() []float64 {
		var xs []float64
		for _, r := range runs {
			xs = append(xs, float64(r.LongPollPolls))
		}
		return xs
	}(), 0.5))
	med := func(get func(*Result) float64) float64 {
		xs := make([]float64, 0, len(runs))
		for _, r := range runs {
			if v := get(r); !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
		return Quantile(xs, 0.5)
	}
	stat := func(get func(*Result) *Stat) *Stat {
		if get(runs[0]) == nil {
			return nil
		}
		val := func(f func(*Stat) float64) float64 {
			return med(func(r *Result) float64 {
				if s := get(r); s != nil {
					return f(s)
				}
				return math.NaN()
			})
		}
		return &Stat{N: get(runs[0]).N, MedianMs: val(func(s *Stat) float64 { return s.MedianMs }), P99Ms: val(func(s *Stat) float64 { return s.P99Ms })}
	}
	m.RoundTrip = stat(func(r *Result) *Stat { return r.RoundTrip })
	m.BareEvaluate = stat(func(r *Result) *Stat { return r.BareEvaluate })
	m.PlaywrightEvaluate = stat(func(r *Result) *Stat { return r.PlaywrightEvaluate })
	m.Fixed = stat(func(r *Result) *Stat { return r.Fixed })
	m.FixedRandom = stat(func(r *Result) *Stat { return r.FixedRandom })
	m.RelayRoundTrip = stat(func(r *Result) *Stat { return r.RelayRoundTrip })
	m.HostToolCall = stat(func(r *Result) *Stat { return r.HostToolCall })
	m.RelayPolls = int(med(func(r *Result) float64 { return float64(r.RelayPolls) }))
	usage := func(get func(*Result) *Usage) Usage {
		f := func(g func(*Usage) float64) float64 { return med(func(r *Result) float64 { return g(get(r)) }) }
		return Usage{
			WallSeconds: f(func(u *Usage) float64 { return u.WallSeconds }), CPUSeconds: f(func(u *Usage) float64 { return u.CPUSeconds }),
			SamplerCPUSeconds: f(func(u *Usage) float64 { return u.SamplerCPUSeconds }),
			PeakPSSBytes:      int64(f(func(u *Usage) float64 { return float64(u.PeakPSSBytes) })),
			PeakRSSBytes:      int64(f(func(u *Usage) float64 { return float64(u.PeakRSSBytes) })),
			PeakProcs:         int(f(func(u *Usage) float64 { return float64(u.PeakProcs) })),
		}
	}
	m.Process = usage(func(r *Result) *Usage { return &r.Process })
	m.RusageCPUSeconds = med(func(r *Result) float64 { return r.RusageCPUSeconds })
	// A catalogue run's medians, where every run has it with the same
	// phases.
	catalogue := func(get func(*Result) *FullRun) *FullRun {
		if get(runs[0]) == nil {
			return nil
		}
		for _, r := range runs {
			if get(r) == nil || len(get(r).Phases) != len(get(runs[0]).Phases) {
				return nil
			}
		}
		fr := *get(runs[0])
		fr.Usage = usage(func(r *Result) *Usage { return &get(r).Usage })
		fr.Phases = nil
		for i, p := range get(runs[0]).Phases {
			fr.Phases = append(fr.Phases, Phase{Name: p.Name, Seconds: med(func(r *Result) float64 { return get(r).Phases[i].Seconds })})
		}
		fr.SuiteSeconds = med(func(r *Result) float64 { return get(r).SuiteSeconds })
		fr.SummedSeconds = med(func(r *Result) float64 { return get(r).SummedSeconds })
		// Each check's median over the runs that ran it.
		fr.CheckSeconds = map[string]float64{}
		for id := range get(runs[0]).CheckSeconds {
			var ss []float64
			for _, r := range runs {
				if s, ok := get(r).CheckSeconds[id]; ok {
					ss = append(ss, s)
				}
			}
			fr.CheckSeconds[id] = Quantile(ss, 0.5)
		}
		return &fr
	}
	m.FullRun = catalogue(func(r *Result) *FullRun { return r.FullRun })
	m.Agentless = catalogue(func(r *Result) *FullRun { return r.Agentless })
	return &m
}
