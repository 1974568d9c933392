package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// fakeSuite plays the suite's side of the channel from a script: each test
// parks the requests listed for it, one at a time, and records the answers.
type fakeSuite struct {
	mu       sync.Mutex
	tests    []protocol.TestMeta
	script   map[string][]protocol.Request
	started  []string
	running  int // index into started
	pending  *protocol.Request
	seq      int
	answers  map[string][]protocol.Result
	results  []protocol.TestResult
	stallAt  string // test id at which the suite stops moving
	resolved []int
	polls    int // calls of Poll
	// verdicts are results reported as scripted, for tests with no
	// requests (status and blockers of their own).
	verdicts map[string]protocol.TestResult
}

func newFake(script map[string][]protocol.Request, ids ...string) *fakeSuite {
	f := &fakeSuite{script: script, answers: map[string][]protocol.Result{}}
	for _, id := range ids {
		f.tests = append(f.tests, protocol.TestMeta{ID: id, Name: id, Clause: protocol.ClauseMust})
	}
	return f
}

func (f *fakeSuite) ListTests(context.Context) (protocol.SuiteList, error) {
	return protocol.SuiteList{ProtocolVersion: protocol.Version, SuiteVersion: "fake", Tests: f.tests}, nil
}

func (f *fakeSuite) Start(_ context.Context, ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started, f.running, f.results, f.pending = ids, 0, nil, nil
	for _, id := range ids {
		delete(f.answers, id)
	}
	return nil
}

// advance parks the next request of the running test or finishes it.
func (f *fakeSuite) advance() {
	for f.pending == nil && f.running < len(f.started) {
		id := f.started[f.running]
		if id == f.stallAt {
			return
		}
		done := len(f.answers[id])
		if reqs := f.script[id]; done < len(reqs) {
			f.seq++
			r := reqs[done]
			r.Seq = f.seq
			f.pending = &r
			return
		}
		if v, ok := f.verdicts[id]; ok {
			v.ID = id
			f.results = append(f.results, v)
			f.running++
			continue
		}
		st := protocol.StatusPass
		for _, a := range f.answers[id] {
			if a.Unsupported {
				st = protocol.StatusSkip
			} else if !a.OK {
				st = protocol.StatusFail
			}
		}
		f.results = append(f.results, protocol.TestResult{ID: id, Status: st})
		f.running++
	}
}

func (f *fakeSuite) Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	f.mu.Lock()
	f.polls++
	f.mu.Unlock()
	return f.snapshot()
}

func (f *fakeSuite) snapshot() (protocol.Poll, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance()
	p := protocol.Poll{State: protocol.StateRunning, Results: append([]protocol.TestResult(nil), f.results...), Request: f.pending}
	if f.running < len(f.started) {
		p.RunningID = f.started[f.running]
	} else {
		p.State = protocol.StateDone
	}
	return p, nil
}

func (f *fakeSuite) Resolve(_ context.Context, seq int, r protocol.Result) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil || f.pending.Seq != seq {
		return false, nil
	}
	id := f.started[f.running]
	f.answers[id] = append(f.answers[id], r)
	f.resolved = append(f.resolved, seq)
	f.pending = nil
	return true, nil
}

// combinedFake also answers and long-polls in one call, as bridge.Suite
// does; noPoll makes it answer without the poll, as an older suite page.
type combinedFake struct {
	*fakeSuite
	noPoll   bool
	combined int
}

func (c *combinedFake) ResolveAndPoll(ctx context.Context, seq int, r protocol.Result, _ time.Duration) (bool, *protocol.Poll, error) {
	ok, err := c.Resolve(ctx, seq, r)
	c.combined++
	if err != nil || c.noPoll {
		return ok, nil, err
	}
	p, err := c.snapshot()
	return ok, &p, err
}

// fakeHost supports clickTrigger only, and counts calls.
type fakeHost struct {
	clicks int
}

func (h *fakeHost) Name() string                           { return "fake" }
func (h *fakeHost) Setup(context.Context, hosts.Env) error { return errors.New("not used") }
func (h *fakeHost) Teardown(context.Context) error         { return nil }
func (h *fakeHost) ClickTrigger(_ context.Context, r protocol.Request) (protocol.Result, error) {
	h.clicks++
	return protocol.Result{OK: true}, nil
}

type panickyHost struct{ fakeHost }

func (h *panickyHost) ToggleTheme(context.Context, protocol.Request) (protocol.Result, error) {
	panic("boom")
}

func drive(t *testing.T, f *fakeSuite, h hosts.Host, o Options) (report.HostRun, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return Drive(ctx, f, h, o, report.HostRun{Host: h.Name()})
}

func statuses(hr report.HostRun) map[string]protocol.Status {
	m := map[string]protocol.Status{}
	for _, c := range hr.Cases {
		m[c.ID] = c.Status
	}
	return m
}

// caseByID is hr's case id (a zero Case when it has none).
func caseByID(hr report.HostRun, id string) report.Case {
	for _, c := range hr.Cases {
		if c.ID == id {
			return c
		}
	}
	return report.Case{}
}

func TestDispatchResolveAndUnsupported(t *testing.T) {
	f := newFake(map[string][]protocol.Request{
		"a/click":  {{Kind: protocol.KindClickTrigger}, {Kind: protocol.KindClickTrigger}},
		"a/theme":  {{Kind: protocol.KindToggleTheme, To: "dark"}},
		"a/nohost": nil,
	}, "a/click", "a/theme", "a/nohost")
	h := &fakeHost{}
	var seen []string
	hr, err := drive(t, f, h, Options{OnCase: func(c report.Case) { seen = append(seen, c.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	if h.clicks != 2 {
		t.Errorf("clickTrigger dispatched %d times, want 2 (once per request)", h.clicks)
	}
	want := map[string]protocol.Status{"a/click": "PASS", "a/theme": "SKIP", "a/nohost": "PASS"}
	for id, st := range want {
		if statuses(hr)[id] != st {
			t.Errorf("%s: %s, want %s", id, statuses(hr)[id], st)
		}
	}
	if a := f.answers["a/theme"]; len(a) != 1 || !a[0].Unsupported {
		t.Errorf("toggleTheme on a host without it must answer unsupported, got %+v", a)
	} else if a[0].Error != hosts.UnsupportedReason(protocol.KindToggleTheme, "", "") || !strings.Contains(a[0].Error, "hosts.ThemeToggler") {
		t.Errorf("the unsupported answer does not say how to provide toggleTheme: %q", a[0].Error)
	}
	if strings.Join(seen, ",") != "a/click,a/theme,a/nohost" {
		t.Errorf("OnCase order %v, want suite order", seen)
	}
	if fmt.Sprint(f.resolved) != "[1 2 3]" {
		t.Errorf("resolved seqs %v, want 1,2,3 in order", f.resolved)
	}
}

func TestInvalidRequestAndPanicBecomeErrorsNotCrashes(t *testing.T) {
	f := newFake(map[string][]protocol.Request{
		"a/bad":   {{Kind: "navigate"}},
		"a/panic": {{Kind: protocol.KindToggleTheme, To: "dark"}},
		"a/after": {{Kind: protocol.KindClickTrigger}},
	}, "a/bad", "a/panic", "a/after")
	h := &panickyHost{}
	hr, err := drive(t, f, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := f.answers["a/bad"]; len(a) != 1 || a[0].OK || !strings.Contains(a[0].Error, "unknown request kind") {
		t.Errorf("invalid request: %+v", a)
	}
	if a := f.answers["a/panic"]; len(a) != 1 || a[0].OK || !strings.Contains(a[0].Error, "panicked") {
		t.Errorf("panic: %+v", a)
	}
	if statuses(hr)["a/after"] != protocol.StatusPass || h.clicks != 1 {
		t.Errorf("the run did not go on after the panic: %v", statuses(hr))
	}
}

func TestStallIsAnInfraErrorNamingTheTest(t *testing.T) {
	f := newFake(map[string][]protocol.Request{"a/one": nil, "a/two": nil}, "a/one", "a/two")
	f.stallAt = "a/two"
	hr, err := drive(t, f, &fakeHost{}, Options{Stall: 200 * time.Millisecond})
	var ie *InfraError
	if !errors.As(err, &ie) || !errors.Is(err, ErrStalled) {
		t.Fatalf("want a stalled InfraError, got %v", err)
	}
	if !strings.Contains(err.Error(), "a/two") {
		t.Errorf("the error does not name the stalled test: %v", err)
	}
	st := statuses(hr)
	if st["a/one"] != protocol.StatusPass || st["a/two"] != protocol.StatusNotRun {
		t.Errorf("statuses %v: finished tests keep their verdict, the rest are NOTRUN", st)
	}
	if hr.Infra == "" {
		t.Error("HostRun.Infra is empty after a stall")
	}
}

func TestSelectionAndNoTests(t *testing.T) {
	f := newFake(nil, "a/one", "b/two", "b/three")
	hr, err := drive(t, f, &fakeHost{}, Options{Selection: Selection{Globs: []string{"b/*"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.started, ",") != "b/two,b/three" || len(hr.Cases) != 2 {
		t.Errorf("started %v, cases %d", f.started, len(hr.Cases))
	}
	_, err = drive(t, newFake(nil, "a/one"), &fakeHost{}, Options{Selection: Selection{Globs: []string{"zzz/*"}}})
	if !errors.Is(err, ErrNoTests) {
		t.Errorf("want ErrNoTests, got %v", err)
	}
}

func TestProtocolMismatchIsInfra(t *testing.T) {
	f := &mismatch{newFake(nil, "a/one")}
	_, err := drive(t, f.fakeSuite, &fakeHost{}, Options{})
	if err != nil {
		t.Fatal(err) // same version: fine
	}
	_, err = Drive(context.Background(), f, &fakeHost{}, Options{}, report.HostRun{})
	if !errors.Is(err, ErrProtocol) {
		t.Errorf("want ErrProtocol, got %v", err)
	}
}

type mismatch struct{ *fakeSuite }

func (m *mismatch) ListTests(ctx context.Context) (protocol.SuiteList, error) {
	l, err := m.fakeSuite.ListTests(ctx)
	l.ProtocolVersion = "999"
	return l, err
}

func TestCancelMarksRestNotRun(t *testing.T) {
	f := newFake(nil, "a/one", "a/two")
	f.stallAt = "a/one"
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	hr, err := Drive(ctx, f, &fakeHost{}, Options{}, report.HostRun{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusNotRun {
			t.Errorf("%s: %s, want NOTRUN", c.ID, c.Status)
		}
	}
}

type evidenceHost struct {
	fakeHost
	calls []string
}

func (h *evidenceHost) TakeEvidence(_ context.Context, dir, base string) ([]string, error) {
	h.calls = append(h.calls, base)
	p := filepath.Join(dir, base+".png")
	return []string{p}, os.WriteFile(p, []byte("png"), 0o644)
}

func TestEvidenceForFailedChecksOnly(t *testing.T) {
	f := newFake(map[string][]protocol.Request{
		"a/ok":  nil,
		"a/bad": {{Kind: protocol.KindToggleTheme, To: "dark"}}, // unsupported → SKIP in the fake
		"a/red": {{Kind: protocol.KindClickTrigger}},
	}, "a/ok", "a/bad", "a/red")
	h := &evidenceHost{}
	dir := t.TempDir()
	failing := &failingClick{evidenceHost: h}
	hr, err := drive(t, f, failing, Options{EvidenceDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	red := caseByID(hr, "a/red")
	for _, c := range hr.Cases {
		if c.ID != "a/red" && len(c.Evidence) != 0 {
			t.Errorf("%s (%s) got evidence %v", c.ID, c.Status, c.Evidence)
		}
	}
	if red.Status != protocol.StatusFail || len(red.Evidence) != 1 {
		t.Fatalf("a/red: %s with evidence %v", red.Status, red.Evidence)
	}
	if want := filepath.Join(dir, "fake", "a__red.png"); red.Evidence[0] != want {
		t.Errorf("evidence path %s, want %s", red.Evidence[0], want)
	}
	if _, err := os.Stat(red.Evidence[0]); err != nil {
		t.Error(err)
	}
	if fmt.Sprint(h.calls) != "[a__red]" {
		t.Errorf("TakeEvidence calls %v", h.calls)
	}
}

type failingClick struct{ *evidenceHost }

func (h *failingClick) ClickTrigger(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: false, Error: "no"}, nil
}

// remountSuite restarts itself (new instance) while its first test waits
// for a host answer, as a host that reloads the app iframe would.
type remountSuite struct {
	*fakeSuite
	instance int
	remounts int
	max      int // remounts at a/one's second request (1 when 0)
}

func (r *remountSuite) Poll(ctx context.Context, w time.Duration) (protocol.Poll, error) {
	p, err := r.fakeSuite.Poll(ctx, w)
	if r.remounts < max(r.max, 1) && p.RunningID == "a/one" && p.Request != nil && len(r.fakeSuite.answers["a/one"]) == 1 {
		// The host reloads the app: the suite starts over, idle.
		r.remounts++
		r.instance++
		r.fakeSuite.mu.Lock()
		r.fakeSuite.pending, r.fakeSuite.started, r.fakeSuite.running, r.fakeSuite.results = nil, nil, 0, nil
		r.fakeSuite.mu.Unlock()
		return protocol.Poll{Instance: fmt.Sprint(r.instance), State: protocol.StateIdle}, nil
	}
	p.Instance = fmt.Sprint(r.instance)
	return p, err
}

// A check a remount interrupts runs again in the new View (a host may
// render a View again), and the run goes on; interrupted a second time,
// it is the ERROR.
func TestRemountMidCheckRunsItAgainOnceAndTheRunGoesOn(t *testing.T) {
	click := protocol.Request{Kind: protocol.KindClickTrigger}
	for _, c := range []struct {
		remounts int
		want     protocol.Status
	}{{1, protocol.StatusPass}, {2, protocol.StatusError}} {
		f := newFake(map[string][]protocol.Request{"a/one": {click, click}}, "a/one", "a/two", "a/three")
		rs := &remountSuite{fakeSuite: f, max: c.remounts}
		hr, err := Drive(context.Background(), rs, &fakeHost{}, Options{}, report.HostRun{})
		if err != nil {
			t.Fatal(err)
		}
		st := statuses(hr)
		if st["a/one"] != c.want || st["a/two"] != protocol.StatusPass || st["a/three"] != protocol.StatusPass {
			t.Fatalf("%d remount(s) during a/one: statuses %v; want a/one %s, the rest still run", c.remounts, st, c.want)
		}
		if c.want == protocol.StatusError && !strings.Contains(hr.Cases[0].Message, "reloaded or remounted the app iframe during this check, twice") {
			t.Errorf("message %q does not say why", hr.Cases[0].Message)
		}
		want := "[a/one a/two a/three]"
		if c.want == protocol.StatusError {
			want = "[a/two a/three]"
		}
		if fmt.Sprint(f.started) != want {
			t.Errorf("after %d remount(s) the suite was started on %v, want %s", c.remounts, f.started, want)
		}
	}
}

// freshAfterStart is a suite the host replaces right after Start reached
// it: the first poll comes from a fresh instance that was never started.
type freshAfterStart struct {
	*fakeSuite
	replaced bool
	starts   [][]string
}

func (r *freshAfterStart) Start(ctx context.Context, ids []string) error {
	r.starts = append(r.starts, ids)
	return r.fakeSuite.Start(ctx, ids)
}

func (r *freshAfterStart) Poll(ctx context.Context, w time.Duration) (protocol.Poll, error) {
	r.fakeSuite.mu.Lock()
	if !r.replaced {
		r.replaced = true
		r.fakeSuite.started, r.fakeSuite.running, r.fakeSuite.results = nil, 0, nil
	}
	idle := r.fakeSuite.started == nil
	r.fakeSuite.mu.Unlock()
	if idle {
		return protocol.Poll{Instance: "fresh", State: protocol.StateIdle, Results: []protocol.TestResult{}}, nil
	}
	p, err := r.fakeSuite.Poll(ctx, w)
	p.Instance = "fresh"
	return p, err
}

// A suite replaced between Start and the first poll answers that poll
// idle: the runner starts the fresh one on every check instead of waiting
// on a suite that will never move (a stall).
func TestRemountBeforeFirstPollRestartsTheSuite(t *testing.T) {
	f := newFake(map[string][]protocol.Request{"a/one": {{Kind: protocol.KindClickTrigger}}}, "a/one", "a/two")
	rs := &freshAfterStart{fakeSuite: f}
	hr, err := Drive(context.Background(), rs, &fakeHost{}, Options{Stall: 5 * time.Second}, report.HostRun{})
	if err != nil {
		t.Fatalf("expected the fresh suite to be started and run, observed: %v", err)
	}
	if st := statuses(hr); st["a/one"] != protocol.StatusPass || st["a/two"] != protocol.StatusPass {
		t.Errorf("statuses %v, expected both PASS: no check was running when the suite was replaced", st)
	}
	if fmt.Sprint(rs.starts) != "[[a/one a/two] [a/one a/two]]" {
		t.Errorf("starts %v, expected the whole selection twice (before and after the replacement)", rs.starts)
	}
}

// flakySuite fails a/flaky the first time it runs and passes it after.
type flakyHost struct {
	fakeHost
	n int
}

func (h *flakyHost) ClickTrigger(context.Context, protocol.Request) (protocol.Result, error) {
	h.n++
	return protocol.Result{OK: h.n > 1}, nil
}

func TestRetriesReportFlakyNotPass(t *testing.T) {
	f := newFake(map[string][]protocol.Request{"a/flaky": {{Kind: protocol.KindClickTrigger}}}, "a/ok", "a/flaky")
	h := &flakyHost{}
	var live []report.Case
	hr, err := drive(t, f, h, Options{Retries: 2, OnCase: func(c report.Case) { live = append(live, c) }})
	if err != nil {
		t.Fatal(err)
	}
	c := caseByID(hr, "a/flaky")
	if c.Status != protocol.StatusPass || !c.Flaky || c.Attempts != 2 || !strings.HasPrefix(c.Message, "flaky: passed on attempt 2") {
		t.Fatalf("a/flaky: %+v", c)
	}
	if fmt.Sprint(f.started) != "[a/flaky]" {
		t.Errorf("the retry started %v, want only the failed check", f.started)
	}
	// Live output shows the first failure as it happened, then the flaky
	// pass of the retry; the final report has only the flaky pass.
	if len(live) != 3 || live[1].Status != protocol.StatusFail || !live[2].Flaky {
		t.Errorf("live cases %+v", live)
	}

	// Without retries the same check is a plain failure.
	h2 := &flakyHost{}
	hr, _ = drive(t, newFake(map[string][]protocol.Request{"a/flaky": {{Kind: protocol.KindClickTrigger}}}, "a/flaky"), h2, Options{})
	if hr.Cases[0].Status != protocol.StatusFail || hr.Cases[0].Flaky {
		t.Errorf("without --retries: %+v", hr.Cases[0])
	}
}

func TestResolveAndPollSavesAPollPerRequest(t *testing.T) {
	script := map[string][]protocol.Request{
		"a/click": {{Kind: protocol.KindClickTrigger}, {Kind: protocol.KindClickTrigger}, {Kind: protocol.KindClickTrigger}},
		"a/theme": {{Kind: protocol.KindToggleTheme, To: "dark"}},
		"a/plain": nil,
	}
	ids := []string{"a/click", "a/theme", "a/plain"}
	want := map[string]protocol.Status{"a/click": "PASS", "a/theme": "SKIP", "a/plain": "PASS"}

	plain := newFake(script, ids...)
	if _, err := drive(t, plain, &fakeHost{}, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, noPoll := range []bool{false, true} {
		c := &combinedFake{fakeSuite: newFake(script, ids...), noPoll: noPoll}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		hr, err := Drive(ctx, c, &fakeHost{}, Options{}, report.HostRun{Host: "fake"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for id, st := range want {
			if statuses(hr)[id] != st {
				t.Errorf("noPoll=%v: %s is %s, want %s", noPoll, id, statuses(hr)[id], st)
			}
		}
		if fmt.Sprint(c.resolved) != "[1 2 3 4]" || c.combined != 4 {
			t.Errorf("noPoll=%v: resolved %v through %d combined calls, want 1..4 through 4", noPoll, c.resolved, c.combined)
		}
		switch {
		case noPoll && c.polls != plain.polls:
			t.Errorf("a page without resolveAndPoll must be polled as before: %d polls, plain runner %d", c.polls, plain.polls)
		case !noPoll && c.polls != plain.polls-4:
			t.Errorf("each combined answer must replace one poll: %d polls, plain runner %d, 4 requests", c.polls, plain.polls)
		}
	}
}

// relayedFake is a fakeSuite that says it is the relay's, and records the
// poll waits it was given.
type relayedFake struct {
	*fakeSuite
	waits []time.Duration
}

// relayWait is the relay's least poll wait, as the fake asks for it.
const relayWait = 5 * time.Second

func (r *relayedFake) MinPollWait() time.Duration { return relayWait }
func (r *relayedFake) Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	r.waits = append(r.waits, wait)
	return r.fakeSuite.Poll(ctx, wait)
}

// Under --bridge relay the capabilities that reach into a View's frame are
// declined (the check skips) without calling the host; the others are
// dispatched as usual. Over a bridge that asks for longer polls
// (hosts.PollWaiter), polls wait that long.
func TestRelayDeclinesFrameCapabilities(t *testing.T) {
	f := newFake(map[string][]protocol.Request{
		"a/click":   {{Kind: protocol.KindClickTrigger}},
		"a/inspect": {{Kind: protocol.KindInspectFrame}},
	}, "a/click", "a/inspect")
	h := &fakeHost{}
	rf := &relayedFake{fakeSuite: f}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o := Options{Bridge: BridgeRelay}
	hr, err := Drive(ctx, rf, h, o, report.HostRun{Host: h.Name()})
	if err != nil {
		t.Fatal(err)
	}
	if h.clicks != 0 {
		t.Errorf("clickTrigger reached the host %d times under --bridge relay", h.clicks)
	}
	if st := statuses(hr); st["a/click"] != protocol.StatusSkip || st["a/inspect"] != protocol.StatusSkip {
		t.Errorf("statuses %v, want both SKIP", st)
	}
	if a := f.answers["a/click"]; len(a) != 1 || !a[0].Unsupported || !strings.Contains(a[0].Error, "--bridge relay") || !strings.Contains(a[0].Error, "to make it judgeable: run with --bridge evaluate") || strings.Contains(a[0].Error, "hosts.TriggerClicker") {
		t.Errorf("the declined answer %+v does not say why, and that --bridge evaluate (not a Go interface) would judge it", a)
	}
	if len(rf.waits) == 0 {
		t.Error("the relayed bridge was never polled")
	}
	for _, w := range rf.waits {
		if w < relayWait {
			t.Errorf("a relayed poll waited %s, less than %s", w, relayWait)
		}
	}

	// The same bridge under the evaluate bridge's run dispatches the click.
	f2 := newFake(map[string][]protocol.Request{"a/click": {{Kind: protocol.KindClickTrigger}}}, "a/click")
	if _, err := drive(t, f2, h, Options{}); err != nil || h.clicks != 1 {
		t.Errorf("evaluate run: %v, %d clicks", err, h.clicks)
	}
}

// A run judged against the draft reports the draft's keyword and cites the
// draft's sentence in the verdict message; the default keeps the suite's.
func TestDriveJudgesAgainstTheEdition(t *testing.T) {
	for _, c := range []struct {
		judge      protocol.Edition
		clause     protocol.Clause
		edition    protocol.Edition
		citeSuffix string
	}{
		{"", protocol.ClauseMust, protocol.EditionStable, `[spec §L275: "If ui.csp is omitted, Host MUST use: default-src 'none'"]`},
		{protocol.EditionDraft, protocol.ClauseShould, protocol.EditionDraft, `img-src 'self' data:; media-src 'self' data:; object-src 'none'; connect-src 'none';"]`},
	} {
		f := newFake(nil, "csp/exact-default")
		f.tests[0].Edition, f.tests[0].Requirements = protocol.EditionStable, []string{"host-restrictive-default"}
		f.verdicts = map[string]protocol.TestResult{"csp/exact-default": {Status: protocol.StatusFail,
			Message: `a fetch was allowed [spec §L275: "If ui.csp is omitted, Host MUST use: default-src 'none'"]`}}
		hr, err := drive(t, f, &fakeHost{}, Options{Selection: Selection{Judge: c.judge}})
		if err != nil {
			t.Fatal(err)
		}
		got := hr.Cases[0]
		if got.Clause != c.clause || got.Edition != c.edition || !strings.HasSuffix(got.Message, c.citeSuffix) || !strings.HasPrefix(got.Message, "a fetch was allowed [spec ") {
			t.Errorf("judged against %q: %s %s %q; want %s %s ending %q", c.judge, got.Clause, got.Edition, got.Message, c.clause, c.edition, c.citeSuffix)
		}
		// The MUST-only gate (--fail-on-should=false) keeps the failure
		// only where the judged edition makes it a MUST.
		gated := report.Gating(report.Run{Hosts: []report.HostRun{hr}}, false)
		if kept := len(gated.Hosts[0].Cases) == 1; kept != (c.clause == protocol.ClauseMust) {
			t.Errorf("judged against %q (%s): the MUST-only gate kept the failure: %v", c.judge, c.clause, kept)
		}
	}
}

// A BLOCKED check is no failure to retry; one whose blockers all passed in
// the same run is red (the missing behaviour is its own); one naming no
// blocker is a harness fault.
func TestBlockedChecks(t *testing.T) {
	f := newFake(nil, "a/base", "a/dep", "a/ok", "a/dep-of-ok", "a/nameless", "a/skipped", "a/dep-of-skipped")
	blocked := func(by ...string) protocol.TestResult {
		msg := "blocked: no x [spec y]"
		if len(by) == 1 {
			msg = "blocked: no x (judged by " + by[0] + ") [spec y]"
		}
		return protocol.TestResult{Status: protocol.StatusBlocked, Message: msg, BlockedBy: by}
	}
	f.verdicts = map[string]protocol.TestResult{
		"a/base":      {Status: protocol.StatusFail, Message: "no tool-input"},
		"a/dep":       blocked("a/base"),
		"a/ok":        {Status: protocol.StatusPass},
		"a/dep-of-ok": blocked("a/ok"),
		"a/nameless":  blocked(),
		// The blocker could not judge either (a host waiting on its user):
		// the missing behaviour was never seen missing.
		"a/skipped":        {Status: protocol.StatusSkip, Message: "waiting on the user"},
		"a/dep-of-skipped": blocked("a/skipped"),
	}
	hr, err := drive(t, f, &flakyHost{}, Options{Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The retry reruns the red checks (a/nameless is an ERROR), never a
	// BLOCKED one.
	if fmt.Sprint(f.started) != "[a/base a/nameless]" {
		t.Errorf("the retry started %v, want only the red checks (never a BLOCKED one)", f.started)
	}
	if c := caseByID(hr, "a/dep"); c.Status != protocol.StatusBlocked || fmt.Sprint(c.BlockedBy) != "[a/base]" {
		t.Errorf("a/dep: expected BLOCKED by [a/base], observed %s %v (%s)", c.Status, c.BlockedBy, c.Message)
	}
	if c := caseByID(hr, "a/dep-of-ok"); c.Status != protocol.StatusFail || c.Message != "no x (not a cascade: a/ok, which judges that behaviour, passed in this run) [spec y]" || c.BlockedBy != nil {
		t.Errorf("a/dep-of-ok, blocked by a check that passed: expected FAIL saying so, observed %s %v (%s)", c.Status, c.BlockedBy, c.Message)
	}
	if c := caseByID(hr, "a/dep-of-skipped"); c.Status != protocol.StatusSkip || c.Message != "no x (judged by a/skipped) [spec y] (not judged: a/skipped could not judge it either: waiting on the user)" || c.BlockedBy != nil {
		t.Errorf("a/dep-of-skipped, blocked by a check that skipped: expected SKIP with the blocker's reason, observed %s %v (%s)", c.Status, c.BlockedBy, c.Message)
	}
	if c := caseByID(hr, "a/nameless"); c.Status != protocol.StatusError || !strings.Contains(c.Message, "naming no blocking check") {
		t.Errorf("a/nameless, BLOCKED by nothing: expected ERROR, observed %s (%s)", c.Status, c.Message)
	}
}

// A block whose blocker is itself BLOCKED names the root of the chain; one
// whose blocker was settled (passed: its own failure; skipped: SKIP) is
// settled by that, whichever comes first in the catalogue.
func TestBlockChainsSettleAndNameTheirRoot(t *testing.T) {
	f := newFake(nil, "a/leaf", "a/mid", "a/root", "a/leaf2", "a/mid2", "a/ok", "a/leaf3", "a/mid3", "a/skip")
	blocked := func(by string) protocol.TestResult {
		return protocol.TestResult{Status: protocol.StatusBlocked, Message: "blocked: no x (judged by " + by + ") [spec y]", BlockedBy: []string{by}}
	}
	f.verdicts = map[string]protocol.TestResult{
		"a/leaf":  blocked("a/mid"),
		"a/mid":   blocked("a/root"),
		"a/root":  {Status: protocol.StatusFail, Message: "no tool-input"},
		"a/leaf2": blocked("a/mid2"),
		"a/mid2":  blocked("a/ok"),
		"a/ok":    {Status: protocol.StatusPass},
		"a/leaf3": blocked("a/mid3"),
		"a/mid3":  blocked("a/skip"),
		"a/skip":  {Status: protocol.StatusSkip, Message: "waiting on the user"},
	}
	hr, err := drive(t, f, &fakeHost{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a/leaf":  "BLOCKED [a/root]",
		"a/mid":   "BLOCKED [a/root]",
		"a/leaf2": "BLOCKED [a/mid2]",
		"a/mid2":  "FAIL []",
		"a/leaf3": "SKIP []",
		"a/mid3":  "SKIP []",
	}
	for id, w := range want {
		c := caseByID(hr, id)
		if got := fmt.Sprintf("%s %v", c.Status, c.BlockedBy); got != w {
			t.Errorf("%s: expected %s, observed %s (%s)", id, w, got, c.Message)
		}
	}
	if c := caseByID(hr, "a/leaf"); !strings.Contains(c.Message, "(a/mid, itself blocked by a/root)") {
		t.Errorf("a/leaf: the message does not keep the link it went through: %s", c.Message)
	}
}

// A check that ended in the driver's ERROR ("harness: …") is BLOCKED by the
// checks it requires that went red in the run (their missing behaviour is
// the likelier cause); with its requirements passed, or for an ERROR that
// is not the driver's, it stays ERROR.
func TestDriverErrorBlockedByAFailedRequirement(t *testing.T) {
	f := newFake(nil, "a/base", "a/probe", "a/ok", "a/probe-of-ok", "a/suite-error")
	for i := range f.tests {
		switch f.tests[i].ID {
		case "a/probe", "a/suite-error":
			f.tests[i].Requires = []string{"a/base"}
		case "a/probe-of-ok":
			f.tests[i].Requires = []string{"a/ok"}
		}
	}
	driver := protocol.TestResult{Status: protocol.StatusError, Message: "harness: the host driver could not close the probe View (closeView: no View displays \"p1\")"}
	f.verdicts = map[string]protocol.TestResult{
		"a/base":        {Status: protocol.StatusFail, Message: "expected exactly one tool-input, observed 0"},
		"a/probe":       driver,
		"a/ok":          {Status: protocol.StatusPass},
		"a/probe-of-ok": driver,
		"a/suite-error": {Status: protocol.StatusError, Message: "TypeError: x is undefined"},
	}
	hr, err := drive(t, f, &fakeHost{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := caseByID(hr, "a/probe"); c.Status != protocol.StatusBlocked || fmt.Sprint(c.BlockedBy) != "[a/base]" || !strings.Contains(c.Message, "no View displays") || !strings.Contains(c.Message, "(judged by a/base)") {
		t.Errorf("a/probe, the driver's ERROR with its requirement failed: expected BLOCKED by a/base keeping the driver's words, observed %s %v (%s)", c.Status, c.BlockedBy, c.Message)
	}
	for _, id := range []string{"a/probe-of-ok", "a/suite-error"} {
		if c := caseByID(hr, id); c.Status != protocol.StatusError || c.BlockedBy != nil {
			t.Errorf("%s: expected to stay ERROR, observed %s %v (%s)", id, c.Status, c.BlockedBy, c.Message)
		}
	}
}

// openToolHost answers openTool from a script of outcomes (true: the call
// was made), the last repeating, and counts the calls.
type openToolHost struct {
	fakeHost
	outcomes []bool
	calls    int
}

func (h *openToolHost) OpenTool(_ context.Context, r protocol.Request) (protocol.Result, error) {
	ok := h.outcomes[min(h.calls, len(h.outcomes)-1)]
	h.calls++
	if !ok {
		return protocol.Result{OK: false, Error: "the tool picker could not call " + r.Tool + ": covered"}, nil
	}
	return protocol.Result{OK: true}, nil
}

// A driver that cannot open tools at all fails the first two probe checks
// and answers the rest at once with that failure, instead of each waiting
// out the driver's wait while the checks queued behind it time out; once
// openTool has worked in the run, every request goes to the driver.
func TestOpenToolThatNeverWorkedIsNotTriedAgain(t *testing.T) {
	for _, c := range []struct {
		name      string
		outcomes  []bool
		wantCalls int
	}{
		{"never works", []bool{false}, openToolGiveUp},
		{"worked once", []bool{true, false}, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := map[string][]protocol.Request{}
			var ids []string
			for i := range 5 {
				id := fmt.Sprintf("p/%d", i)
				ids = append(ids, id)
				script[id] = []protocol.Request{{Kind: protocol.KindOpenTool, Tool: "conformance_slow"}}
			}
			f := newFake(script, ids...)
			h := &openToolHost{outcomes: c.outcomes}
			if _, err := drive(t, f, h, Options{}); err != nil {
				t.Fatal(err)
			}
			if h.calls != c.wantCalls {
				t.Errorf("the driver's openTool ran %d times, want %d", h.calls, c.wantCalls)
			}
			for i, id := range ids {
				a := f.answers[id]
				if len(a) != 1 {
					t.Fatalf("%s got %d answers", id, len(a))
				}
				notTried := strings.HasPrefix(a[0].Error, "not tried:")
				if wantNotTried := i >= h.calls; notTried != wantNotTried || (notTried && (a[0].OK || !strings.Contains(a[0].Error, "covered"))) {
					t.Errorf("%s answered %+v; want a not-tried failure naming the driver's: %v", id, a[0], wantNotTried)
				}
			}
		})
	}
}
