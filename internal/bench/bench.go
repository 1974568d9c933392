// Package bench measures the dispatch round trip against one bare evaluate
// and a fixed polling interval, and a full run's phases, CPU and peak
// memory, on the reference host. The phases of the full run come from the
// runner (runner.Options.OnPhase) and from the session's start-up.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/bridge/relay"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/proctree"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// Targets the bench checks its figures against (issue "Speed and scale").
const (
	targetRoundTripOverBare = 3.0
	// The relay crosses the host's postMessage and its proxy to the
	// fixture server (issue #17).
	targetRelayOverRoundTrip = 5.0
	targetFullRun            = 30 * time.Second
	// Issue #27: the checks' own time, summed, on the reference host and
	// on an agentless profile host.
	targetSuiteReference = 8 * time.Second
	targetSuiteAgentless = 15 * time.Second
	targetPeakPSS        = 1 << 30
)

type Options struct {
	RoundTrips, Evaluates, BaselineTrips int
	// RelayTrips are the round trips measured over the relay bridge (0
	// skips them).
	RelayTrips                        int
	Interval, SampleEvery, AppTimeout time.Duration
	FullRun                           bool
	// Agentless times the catalogue (Run) on an agentless profile host
	// too (agentlessProfile), after the full run (only with FullRun).
	Agentless bool
	Run       []string
	// Reports keeps the full run's reports and evidence in this
	// directory ("" writes them to a temporary one).
	Reports string
	Launch  browser.Options
	// Version is the tool's version, for the reports.
	Version string
}

func (o Options) Validate() error {
	switch {
	case o.RoundTrips < 1 || o.RoundTrips > 100_000:
		return fmt.Errorf("--round-trips must be between 1 and 100000, got %d", o.RoundTrips)
	case o.Evaluates < 1:
		return fmt.Errorf("--evaluates must be at least 1, got %d", o.Evaluates)
	case o.RelayTrips < 0 || o.RelayTrips > 100_000:
		return fmt.Errorf("--relay-round-trips must be between 0 and 100000, got %d", o.RelayTrips)
	case o.BaselineTrips < 0:
		return fmt.Errorf("--baseline-round-trips must not be negative, got %d", o.BaselineTrips)
	case o.BaselineTrips > 0 && (o.Interval < time.Millisecond || o.Interval > time.Minute):
		return fmt.Errorf("--baseline-interval must be between 1ms and 1m, got %s", o.Interval)
	case o.SampleEvery < 10*time.Millisecond:
		return fmt.Errorf("--sample-interval must be at least 10ms, got %s", o.SampleEvery)
	case o.AppTimeout <= 0:
		return fmt.Errorf("--app-timeout must be positive, got %s", o.AppTimeout)
	case o.Launch.WSEndpoint != "" && o.Launch.CDPURL != "":
		return errors.New("--browser-ws and --cdp exclude each other")
	}
	for _, g := range o.Run {
		if _, err := filepath.Match(g, ""); err != nil {
			return fmt.Errorf("--run %q is not a valid glob: %v", g, err)
		}
	}
	return nil
}

// Run does the measurements; a partial result comes back with an error.
func Run(ctx context.Context, o Options, logf func(string, ...any)) (*Result, error) {
	res := &Result{CPUs: runtime.NumCPU(), LoadAvg: loadAverage(), Headless: !o.Launch.Headed, Spawns: map[string]int{}}
	age, _ := proctree.Age(os.Getpid())
	t0 := time.Now().Add(-age) // the process's start
	sampler, err := proctree.Start(os.Getpid(), o.SampleEvery)
	if err != nil {
		return nil, fmt.Errorf("sampling the process tree: %w", err)
	}
	finish := func() {
		u, serr := sampler.Stop()
		if serr != nil {
			logf("sampling: %v", serr)
		}
		res.Process = usageOf(u, time.Since(t0))
		res.Samples = u.Samples
		for _, p := range u.Seen {
			res.Spawns[processKind(p)]++
		}
		res.RusageCPUSeconds = rusageCPU().Seconds()
	}
	defer finish()

	// Phases follow each other: each ends where the next begins, so they
	// add up to the full run.
	var phases []Phase
	last := time.Now()
	phase := func(name string, d time.Duration) {
		phases = append(phases, Phase{Name: name, Seconds: d.Seconds()})
		last = time.Now()
	}
	phase("process start", age)

	var browserWall time.Duration
	s, err := conform.Start(ctx, conform.Options{Launch: o.Launch, Logf: logf,
		OnPhase: func(p string, d time.Duration) {
			switch p {
			case conform.PhaseFixtures:
				phase("fixture servers", time.Since(last))
			case conform.PhaseBrowser:
				browserWall = time.Since(last)
			}
		}})
	if err != nil {
		return res, err
	}
	defer s.Close()
	br := s.Browser
	res.Browser, res.Remote = br.Version(), br.Remote
	phase("driver start", br.DriverStart)
	launchName := "browser launch"
	if br.Remote != "" {
		launchName = "browser connect"
	}
	phase(launchName, browserWall-br.DriverStart)
	env := s.Env()
	env.AppTimeout, env.Logf = o.AppTimeout, logf

	if o.FullRun {
		fr, err := fullRun(ctx, env, o, phase)
		if fr != nil {
			// The run ended with its last phase; the phases add up to it
			// but for the evaluate that reads the host page's load time.
			end := last
			sampler.Sample()
			fr.Usage = usageOf(sampler.Snapshot(), end.Sub(t0))
			fr.Phases = phases
			res.FullRun = fr
		}
		if err != nil {
			return res, err
		}
	}
	if o.FullRun && o.Agentless {
		ar, err := agentlessRun(ctx, env, o, sampler)
		res.Agentless = ar
		if err != nil {
			return res, err
		}
	}
	if err := dispatchBench(ctx, env, o, res); err != nil {
		return res, err
	}
	if o.RelayTrips > 0 {
		rl := s.NewRelay()
		defer rl.Close()
		return res, relayBench(ctx, runner.Options{Env: env, Relay: rl, Bridge: runner.BridgeRelay}, o, res)
	}
	return res, nil
}

// referenceWith sets up a reference host of its own for the measurements
// named what and returns its suite bridge as a B (the evaluate bridge, or
// the relay's under ro.Bridge relay). teardown is always to be called.
func referenceWith[B hosts.SuiteBridge](ctx context.Context, ro runner.Options, what string) (h *reference.Host, sb B, teardown func(), err error) {
	h = reference.New()
	teardown = func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		h.Teardown(tctx)
	}
	sbi, err := runner.SetUp(ctx, h, ro)
	if err != nil {
		return h, sb, teardown, fmt.Errorf("setting up the reference host for %s: %w", what, err)
	}
	sb, ok := sbi.(B)
	if !ok {
		return h, sb, teardown, fmt.Errorf("the reference host's bridge for %s is a %T, not a %T", what, sbi, sb)
	}
	return h, sb, teardown, nil
}

// relayBench measures, in a third reference host whose suite is reached
// through the relay bridge only, the same round trip: each request goes
// from the View to the runner and its result back as the View's
// tools/call through the host to the fixture server.
func relayBench(ctx context.Context, ro runner.Options, o Options, res *Result) error {
	h, sb, teardown, err := referenceWith[*relay.Bridge](ctx, ro, "the relay measurements")
	defer teardown()
	if err != nil {
		return err
	}
	// Warm-up, then the measurement, with the runner's relay poll wait.
	wopts := RoundTripOptions{RoundTrips: 10, ConfigureDiag: sb.ConfigureDiag, PollWait: relay.PollWait}
	if _, err := MeasureRoundTrips(ctx, sb, h, wopts); err != nil {
		return fmt.Errorf("warming up the relay: %w", err)
	}
	wopts.RoundTrips = o.RelayTrips
	rt, err := MeasureRoundTrips(ctx, sb, h, wopts)
	if err != nil {
		return fmt.Errorf("relay round trips: %w", err)
	}
	st := statOf(rt.MS)
	res.RelayRoundTrip, res.RelayPolls = &st, rt.Polls
	return nil
}

// fullRun runs the selected checks on a reference host through the
// runner, which times setup, the tests and teardown (OnPhase), then
// writes every report format.
func fullRun(ctx context.Context, env hosts.Env, o Options, phase func(string, time.Duration)) (*FullRun, error) {
	fr := &FullRun{}
	h := reference.New()
	err := runCatalogue(ctx, h, env, o, "", fr, func(d time.Duration) {
		// Host ready is the host page's load event (navigation timing,
		// read without a user gesture); app ready is the suite found in
		// the app frame.
		setupEnd := time.Now()
		setupStart := setupEnd.Add(-d)
		if loaded, ok := hostPageLoaded(ctx, h, setupStart, setupEnd); ok {
			phase("host ready", loaded.Sub(setupStart))
			phase("app ready", setupEnd.Sub(loaded))
		} else {
			phase("host and app ready", d)
		}
	}, phase)
	if err != nil {
		return fr, fmt.Errorf("the full run: %w", err)
	}
	return fr, nil
}

// runCatalogue runs the selected checks (o.Run) on h, counts them into
// fr, tells onSetup how long the host's setup took and phase the tests',
// the teardown's and the reports' times, and writes every report format
// and the evidence to o.Reports/sub (a temporary directory without
// o.Reports).
func runCatalogue(ctx context.Context, h hosts.Host, env hosts.Env, o Options, sub string, fr *FullRun, onSetup func(time.Duration), phase func(string, time.Duration)) error {
	evidence := filepath.Join(o.Reports, sub)
	if o.Reports == "" {
		tmp, err := os.MkdirTemp("", "mcpconform-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		evidence = tmp
	}
	var tests time.Duration
	hr, err := runner.Run(ctx, h, runner.Options{
		Env: env, Selection: runner.Selection{Globs: o.Run}, EvidenceDir: filepath.Join(evidence, "evidence"), Logf: env.Logf,
		OnPhase: func(p string, d time.Duration) {
			switch p {
			case runner.PhaseSetup:
				onSetup(d)
			case runner.PhaseListTests:
				tests = d
			case runner.PhaseRun:
				phase("tests", tests+d)
			case runner.PhaseTeardown:
				phase("teardown", d)
			}
		},
	})
	fr.count(hr)
	if err != nil {
		return err
	}
	start := time.Now()
	run := report.Run{Tool: "mcpconform", Version: o.Version, StartedAt: hr.StartedAt, Duration: hr.Duration, Hosts: []report.HostRun{hr}}
	if err := report.Write(report.InDir(evidence), run, report.Options{}, nil); err != nil {
		return fmt.Errorf("writing the reports: %w", err)
	}
	phase("reports", time.Since(start))
	return nil
}

// count fills in the run's outcome and the checks' times.
func (fr *FullRun) count(hr report.HostRun) {
	c := hr.Count()
	fr.Checks, fr.Passed, fr.Failed, fr.Skipped = len(hr.Cases), c.Passed, c.Failed+c.TimedOut+c.Errored, c.Skipped
	fr.CheckSeconds = map[string]float64{}
	for _, cs := range hr.Cases {
		fr.CheckSeconds[cs.ID] = cs.Duration.Seconds()
		fr.SummedSeconds += cs.Duration.Seconds()
	}
	fr.SuiteSeconds = span(hr.Cases, fr.SummedSeconds)
}

// span is the time from the first check's start to the last one's end,
// summed where no check's start is known. A check the runner never saw
// running and that took no time (0 ms) has no start, and changes neither.
func span(cases []report.Case, summed float64) float64 {
	var first, last time.Time
	for _, cs := range cases {
		if cs.StartedAt.IsZero() {
			continue
		}
		if first.IsZero() || cs.StartedAt.Before(first) {
			first = cs.StartedAt
		}
		if end := cs.StartedAt.Add(cs.Duration); end.After(last) {
			last = end
		}
	}
	if first.IsZero() {
		return summed
	}
	return last.Sub(first).Seconds()
}

// hostPageLoaded reads when the host page's load event ended, from its
// navigation timing, through a gesture-free evaluate in the main frame.
func hostPageLoaded(ctx context.Context, h *reference.Host, from, to time.Time) (time.Time, bool) {
	if h.Page == nil || h.Ctx == nil {
		return time.Time{}, false
	}
	ev := bridge.NewEvaluator(h.Ctx, h.Page.MainFrame(), "true")
	defer ev.Reset()
	var ms float64
	err := ev.EvalInto(ctx, "(() => { const n = performance.getEntriesByType('navigation')[0]; return n && n.loadEventEnd > 0 ? performance.timeOrigin + n.loadEventEnd : 0; })()", &ms)
	if err != nil || ms <= 0 {
		return time.Time{}, false
	}
	t := time.UnixMicro(int64(ms * 1000))
	// The page's clock is this machine's; anything outside setup is wrong.
	if t.Before(from.Add(-50*time.Millisecond)) || t.After(to.Add(50*time.Millisecond)) {
		return time.Time{}, false
	}
	if t.Before(from) {
		t = from
	}
	if t.After(to) {
		t = to
	}
	return t, true
}

// dispatchBench measures, in a second reference host in the same browser,
// the round trip under both polling policies and bare evaluates.
func dispatchBench(ctx context.Context, env hosts.Env, o Options, res *Result) error {
	h, sb, teardown, err := referenceWith[*bridge.Suite](ctx, runner.Options{Env: env}, "the dispatch measurements")
	defer teardown()
	if err != nil {
		return err
	}
	configure := func(ctx context.Context, expr string) error {
		_, err := sb.Evaluator().Eval(ctx, expr)
		return err
	}
	// A few round trips first, so that no cold path is measured.
	if _, err := MeasureRoundTrips(ctx, sb, h, RoundTripOptions{RoundTrips: 10, Configure: configure}); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	lp, err := MeasureRoundTrips(ctx, sb, h, RoundTripOptions{Policy: LongPoll, RoundTrips: o.RoundTrips, Configure: configure})
	if err != nil {
		return fmt.Errorf("long-poll round trips: %w", err)
	}
	st := statOf(lp.MS)
	res.RoundTrip, res.LongPollWallMs, res.LongPollPolls = &st, float64(lp.Wall.Microseconds())/1000, lp.Polls

	ev := sb.Evaluator()
	bare := make([]float64, 0, o.Evaluates)
	for i := 0; i < o.Evaluates; i++ {
		t0 := time.Now()
		if _, err := ev.Eval(ctx, "1"); err != nil {
			return fmt.Errorf("bare evaluate: %w", err)
		}
		bare = append(bare, float64(time.Since(t0).Microseconds())/1000)
	}
	bs := statOf(bare)
	res.BareEvaluate = &bs

	if o.RelayTrips > 0 {
		// The relay's floor: one tools/call from the View through the
		// host to the fixture server and back, as the relay makes them.
		tc, err := hostToolCalls(ctx, ev, o.Evaluates)
		if err != nil {
			return fmt.Errorf("tools/call through the host: %w", err)
		}
		ts := statOf(tc)
		res.HostToolCall = &ts
	}

	if o.BaselineTrips > 0 {
		res.IntervalMs = float64(o.Interval.Milliseconds())
		fx, err := MeasureRoundTrips(ctx, sb, h, RoundTripOptions{Policy: FixedInterval, Interval: o.Interval, RoundTrips: o.BaselineTrips, Configure: configure})
		if err != nil {
			return fmt.Errorf("fixed-interval round trips: %w", err)
		}
		fs := statOf(fx.MS)
		res.Fixed = &fs
		rp, err := MeasureRoundTrips(ctx, sb, h, RoundTripOptions{Policy: FixedInterval, Interval: o.Interval, RoundTrips: o.BaselineTrips,
			GapMs: int(o.Interval.Milliseconds()), Configure: configure})
		if err != nil {
			return fmt.Errorf("fixed-interval round trips at a random phase: %w", err)
		}
		rs := statOf(rp.MS)
		res.FixedRandom = &rs
	}

	// Last: Playwright's own evaluate gives the frame user activation, so
	// it must not run before anything that could care.
	f := sb.Frame()
	pwe := make([]float64, 0, o.Evaluates)
	for i := 0; i < o.Evaluates; i++ {
		t0 := time.Now()
		if _, err := f.Evaluate("() => 1"); err != nil {
			return fmt.Errorf("Playwright evaluate: %w", err)
		}
		pwe = append(pwe, float64(time.Since(t0).Microseconds())/1000)
	}
	ps := statOf(pwe)
	res.PlaywrightEvaluate = &ps
	return nil
}

// hostToolCalls times n tools/call of the fixture's echo probe sent
// from the View straight to the host (postMessage, ids of their own), as
// the relay client sends its calls, in milliseconds, measured in the page.
func hostToolCalls(ctx context.Context, ev *bridge.Evaluator, n int) ([]float64, error) {
	var ms []float64
	err := ev.EvalInto(ctx, fmt.Sprintf(`(async () => {
	  const ms = [];
	  for (let i = 0; i < %d; i++) {
	    const id = 1500000000 + i;
	    const t0 = performance.now();
	    await new Promise((resolve, reject) => {
	      const timer = setTimeout(() => reject(new Error("no answer to tools/call within 10 s")), 10000);
	      const l = (e) => {
	        if (e.source !== window.parent || !e.data || e.data.id !== id) return;
	        e.stopImmediatePropagation();
	        window.removeEventListener("message", l, true);
	        clearTimeout(timer);
	        resolve();
	      };
	      window.addEventListener("message", l, true);
	      window.parent.postMessage({jsonrpc: "2.0", id, method: "tools/call", params: {name: %q, arguments: {op: "echo", value: i}}}, "*");
	    });
	    ms.push(performance.now() - t0);
	  }
	  return ms;
	})()`, n, mcpserver.ToolProbe), &ms)
	return ms, err
}

func usageOf(r proctree.Result, wall time.Duration) Usage {
	return Usage{WallSeconds: wall.Seconds(), CPUSeconds: (r.CPU - r.SamplerCPU).Seconds(), SamplerCPUSeconds: r.SamplerCPU.Seconds(),
		PeakPSSBytes: r.PeakPSS, PeakRSSBytes: r.PeakRSS, PeakProcs: r.PeakProcs}
}

func rusageCPU() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}

func loadAverage() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	var l [3]float64
	if n, _ := fmt.Sscan(string(b), &l[0], &l[1], &l[2]); n != 3 {
		return nil
	}
	return l[:]
}

// processKind names a process the sampler saw, for the spawn counts.
func processKind(p proctree.Seen) string {
	if p.PID == os.Getpid() {
		return "mcpconform"
	}
	cl := p.Cmdline
	switch {
	case strings.Contains(cl, "cli.js --version"):
		return "node cli.js --version"
	case strings.Contains(cl, "cli.js run-driver"):
		return "node cli.js run-driver"
	case strings.Contains(cl, "cli.js run-server"):
		return "node cli.js run-server"
	case strings.HasSuffix(cl, " --version") && strings.Contains(p.Comm, "node"):
		return "node --version"
	case strings.Contains(p.Comm, "crashpad") || strings.Contains(cl, "crashpad_handler"):
		return "chromium crashpad handler"
	case strings.Contains(p.Comm, "chrom") || strings.Contains(cl, "chromium") || strings.Contains(cl, "chrome"):
		if i := strings.Index(cl, "--type="); i >= 0 {
			t := cl[i+len("--type="):]
			if j := strings.IndexByte(t, ' '); j >= 0 {
				t = t[:j]
			}
			return "chromium --type=" + t
		}
		return "chromium (browser)"
	}
	if cl == "" {
		return p.Comm + " (exited before its command line was read)"
	}
	return p.Comm
}

// Repeat runs the bench in n fresh processes of this executable (driver
// and browser start are per process, so repeating inside one would
// measure something else): `bench --json <file>` and args(i) for run i,
// its output going to stdout and stderr. It prints a header before each
// run and returns the medians of their figures.
func Repeat(ctx context.Context, n int, stdout, stderr io.Writer, args func(i int) []string) (*Result, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mcpconform-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var runs []*Result
	for i := 1; i <= n; i++ {
		fmt.Fprintf(stdout, "=== bench run %d of %d (a fresh process)\n", i, n)
		out := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		cmd := exec.CommandContext(ctx, self, append([]string{"bench", "--json", out}, args(i)...)...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("bench run %d: %w", i, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("bench run %d: %w", i, err)
		}
		runs = append(runs, &r)
	}
	fmt.Fprintf(stdout, "\n=== medians over %d processes\n", n)
	return Median(runs), nil
}
