package connect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/operator"
	"github.com/mcpconform/mcpconform/internal/testkit/ptytest"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// fakeSuite is an in-process suite behind a SuiteBridge, as the relay
// would hand it over: each test parks at most one capability request and
// judges the answer the way the real suite's t.host does (unsupported:
// SKIP; ok: PASS; not ok: FAIL with the host's reason).
type fakeSuite struct {
	mu      sync.Mutex
	tests   []fakeTest
	queue   []fakeTest
	seq     int
	pending *protocol.Request
	answer  *protocol.Result
	results []protocol.TestResult
	started bool
	// version counts changes; a poll with nothing new since the last one
	// waits (a long-poll) for a change or its wait.
	version, polled int
	polls           int
}

type fakeTest struct {
	id  string
	req *protocol.Request // nil: needs nothing, passes
}

func (s *fakeSuite) ListTests(context.Context) (protocol.SuiteList, error) {
	l := protocol.SuiteList{ProtocolVersion: protocol.Version, SuiteVersion: "fake"}
	for _, t := range s.tests {
		m := protocol.TestMeta{ID: t.id, Name: t.id, Clause: protocol.ClauseMust, Edition: protocol.EditionStable, Vantage: protocol.VantageInView, Needs: []protocol.Kind{}}
		if t.req != nil {
			m.Needs = []protocol.Kind{t.req.Kind}
		}
		l.Tests = append(l.Tests, m)
	}
	return l, nil
}

func (s *fakeSuite) Start(_ context.Context, ids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started, s.queue, s.results = true, nil, nil
	for _, t := range s.tests {
		for _, id := range ids {
			if id == t.id {
				s.queue = append(s.queue, t)
			}
		}
	}
	return nil
}

// step advances the suite as far as it can without an answer.
func (s *fakeSuite) step() {
	for len(s.queue) > 0 {
		t := s.queue[0]
		if t.req == nil {
			s.results = append(s.results, protocol.TestResult{ID: t.id, Status: protocol.StatusPass})
			s.queue = s.queue[1:]
			continue
		}
		if s.pending == nil && s.answer == nil {
			s.seq++
			r := *t.req
			r.Seq = s.seq
			s.pending = &r
			return
		}
		if s.answer == nil {
			return // parked
		}
		a := *s.answer
		s.answer = nil
		res := protocol.TestResult{ID: t.id, Status: protocol.StatusPass}
		switch {
		case a.Unsupported:
			res.Status, res.Message = protocol.StatusSkip, a.Error
		case !a.OK:
			res.Status, res.Message = protocol.StatusFail, a.Error
		}
		s.results = append(s.results, res)
		s.queue = s.queue[1:]
	}
}

func (s *fakeSuite) Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	deadline := time.Now().Add(wait)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls++
	for {
		before := fmt.Sprint(s.pending, s.answer, len(s.queue), len(s.results))
		s.step()
		if fmt.Sprint(s.pending, s.answer, len(s.queue), len(s.results)) != before {
			s.version++
		}
		if s.version != s.polled || time.Now().After(deadline) || ctx.Err() != nil || (s.started && len(s.queue) == 0) {
			break
		}
		s.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		s.mu.Lock()
	}
	s.polled = s.version
	p := protocol.Poll{Instance: "fake-1", State: protocol.StateRunning, Request: s.pending, Results: append([]protocol.TestResult(nil), s.results...)}
	if len(s.queue) > 0 {
		p.RunningID = s.queue[0].id
	}
	if s.started && len(s.queue) == 0 {
		p.State = protocol.StateDone
	}
	return p, nil
}

func (s *fakeSuite) Resolve(_ context.Context, seq int, r protocol.Result) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil || s.pending.Seq != seq {
		return false, nil
	}
	s.pending, s.answer = nil, &r
	s.version++
	return true, nil
}

// abandon gives up on the parked request the way the suite does when a
// check's time limit runs out: the check is TIMEOUT and the next begins.
func (s *fakeSuite) abandon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		return
	}
	s.results = append(s.results, protocol.TestResult{ID: s.queue[0].id, Status: protocol.StatusTimeout, Message: "timed out"})
	s.queue = s.queue[1:]
	s.pending = nil
	s.version++
}

// fakeRelay hands the suite over once appear is closed (nil: at once).
type fakeRelay struct {
	suite  hosts.SuiteBridge
	appear chan struct{}
	awaits int
	armed  bool
}

// Arm is the runner's arming before Setup.
func (r *fakeRelay) Arm() { r.armed = true }

func (r *fakeRelay) Await(ctx context.Context) (hosts.SuiteBridge, error) {
	r.awaits++
	if r.appear != nil {
		select {
		case <-r.appear:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return r.suite, nil
}

func everyKindSuite() *fakeSuite {
	return &fakeSuite{tests: []fakeTest{
		{id: "a/needs-nothing"},
		{id: "a/click", req: &protocol.Request{Kind: protocol.KindClickTrigger}},
		{id: "a/conversation", req: &protocol.Request{Kind: protocol.KindConversationContains, Marker: "MARKER-1", TimeoutMs: 1000}},
		{id: "a/theme", req: &protocol.Request{Kind: protocol.KindToggleTheme, To: "dark"}},
		{id: "a/model-tools", req: &protocol.Request{Kind: protocol.KindReadModelToolList}},
		{id: "a/also-nothing"},
	}}
}

// byID is hr's cases by check ID.
func byID(hr report.HostRun) map[string]report.Case {
	out := map[string]report.Case{}
	for _, c := range hr.Cases {
		out[c.ID] = c
	}
	return out
}

type ran struct {
	hr  report.HostRun
	err error
}

// runAsync runs h on suite in the background, as the CLI would with a
// relay that has the suite at once.
func runAsync(ctx context.Context, h *Host, suite *fakeSuite) <-chan ran {
	done := make(chan ran, 1)
	go func() {
		hr, err := runner.Run(ctx, h, runner.Options{Relay: &fakeRelay{suite: suite}, Env: hosts.Env{ServerURL: "http://127.0.0.1:9/mcp", AppTimeout: 5 * time.Second}})
		done <- ran{hr, err}
	}()
	return done
}

// await is the background run's outcome; after 20 s the test fails.
func await(t *testing.T, done <-chan ran) ran {
	t.Helper()
	return testwait.Recv(t, done, 20*time.Second, "the run never ended")
}

// Without an operator the host has no capability: checks that need none
// are judged, the rest skip naming the capability. Setup printed the
// server's URL and the tool to ask for.
func TestWithoutOperatorOnlyChecksThatNeedNothingAreJudged(t *testing.T) {
	var out strings.Builder
	h := New(Options{Out: &out})
	if caps := hosts.Capabilities(h); len(caps) != 0 {
		t.Fatalf("capabilities without an operator: %v", caps)
	}
	relay := &fakeRelay{suite: everyKindSuite()}
	hr, err := runner.Run(context.Background(), h, runner.Options{Relay: relay, Env: hosts.Env{ServerURL: "https://mcp.example.com/mcp", SecondServerURL: "https://mcp.example.com/mcp/second", AppTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]protocol.Status{"a/needs-nothing": "PASS", "a/also-nothing": "PASS", "a/click": "SKIP", "a/conversation": "SKIP", "a/theme": "SKIP", "a/model-tools": "SKIP"}
	cases := byID(hr)
	for id, st := range want {
		if got := cases[id].Status; got != st {
			t.Errorf("%s: %s, want %s", id, got, st)
		}
	}
	if c := cases["a/click"]; !strings.Contains(c.Message, "unsupported: clickTrigger") || !strings.Contains(c.Message, "to make it judgeable: run with --operator") {
		t.Errorf("the skip does not name the capability and --operator: %q", c.Message)
	}
	if c := cases["a/model-tools"]; !strings.Contains(c.Message, "no person at a terminal can perform it") || strings.Contains(c.Message, "MCPCONFORM_<PROFILE>") {
		t.Errorf("the model-tools skip should say no operator can provide it, not name a profile variable: %q", c.Message)
	}
	for _, s := range []string{"Streamable HTTP", "\n       https://mcp.example.com/mcp\n", "a second server, https://mcp.example.com/mcp/second", `"Call the conformance_suite tool with any nonce."`, "Without --operator", "Waiting up to 5s (--app-timeout)", "The suite connected; running the checks"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the instructions lack %q:\n%s", s, out.String())
		}
	}
	if relay.awaits != 1 || !relay.armed {
		t.Errorf("Await called %d times, armed %v", relay.awaits, relay.armed)
	}
}

// The host offers no app frame, so a run without a relay cannot reach its
// suite: a clear infrastructure error, before anything is asked of the
// person.
func TestARunWithoutARelayIsAClearError(t *testing.T) {
	var out strings.Builder
	hr, err := runner.Run(context.Background(), New(Options{Out: &out}), runner.Options{Env: hosts.Env{ServerURL: "http://127.0.0.1:1/mcp", AppTimeout: time.Second}})
	var ie *runner.InfraError
	if !errors.As(err, &ie) || !errors.Is(err, runner.ErrNoRelay) || !strings.Contains(hr.Infra, "relay SuiteBridge") {
		t.Fatalf("run without a relay: %v, infra %q", err, hr.Infra)
	}
	if strings.Contains(out.String(), "add an MCP server") {
		t.Errorf("instructions were printed for a run that cannot work:\n%s", out.String())
	}
}

// The run waits for the suite no longer than --app-timeout, and says what
// to look at when it never came; the host's own default is ten minutes.
func TestNoSuiteWithinTheAppTimeout(t *testing.T) {
	var logged []string
	relay := &fakeRelay{suite: everyKindSuite(), appear: make(chan struct{})}
	start := time.Now()
	_, err := runner.SetUp(context.Background(), New(Options{}), runner.Options{Relay: relay, Env: hosts.Env{ServerURL: "http://127.0.0.1:9/mcp", AppTimeout: 200 * time.Millisecond,
		Logf: func(f string, a ...any) { logged = append(logged, f) }}})
	if err == nil || !strings.Contains(err.Error(), "within 200ms (--app-timeout)") || !strings.Contains(err.Error(), "serverTools") {
		t.Fatalf("SetUp: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("SetUp waited %s", d)
	}
	if len(logged) == 0 {
		t.Error("without Out, the instructions go nowhere")
	}
	if got := hosts.AppTimeout(New(Options{}), 0); got != AppTimeout {
		t.Errorf("the default app timeout is %s, want %s", got, AppTimeout)
	}

	// A suite that appears within the limit is taken.
	close(relay.appear)
	sb, err := runner.SetUp(context.Background(), New(Options{}), runner.Options{Relay: relay, Env: hosts.Env{ServerURL: "http://127.0.0.1:9/mcp", AppTimeout: time.Second}})
	if err != nil || sb == nil {
		t.Fatalf("SetUp once the suite appeared: %v", err)
	}
}

// With an operator on a terminal, the capabilities a person can perform
// are asked; the answers resolve them, a timeout fails the check with the
// reason, and what a person cannot do still skips.
func TestOperatorOnATerminal(t *testing.T) {
	tm := ptytest.Open(t)
	op := operator.New(tm.TTY, tm.TTY, 500*time.Millisecond)
	h := New(Options{Operator: op, Out: tm.TTY})
	want := []protocol.Kind{protocol.KindClickTrigger, protocol.KindConfirmDialog, protocol.KindCheckLinkOpen, protocol.KindConversationContains, protocol.KindToggleTheme, protocol.KindCancelTool, protocol.KindCloseView}
	if got := hosts.Capabilities(h); !slices.Equal(got, want) {
		t.Fatalf("capabilities with an operator: %v, want %v", got, want)
	}

	done := runAsync(context.Background(), h, everyKindSuite())
	at := tm.WaitFor("--operator: checks that need something done in the host will ask you here", 0)
	at = tm.WaitFor(`click the button labelled "Conformance trigger"`, at)
	tm.Type("\r")
	at = tm.WaitFor(`Does the conversation show "MARKER-1"?`, at)
	tm.Type("n\r")
	at = tm.WaitFor("Switch the host to its dark theme", at)
	// No answer: the prompt's 500ms run out.
	tm.WaitFor("no answer within 500ms: recorded as failed", at)
	r := await(t, done)
	if r.err != nil {
		t.Fatal(r.err)
	}
	cases := byID(r.hr)
	for id, s := range map[string]protocol.Status{"a/needs-nothing": "PASS", "a/click": "PASS", "a/conversation": "FAIL", "a/theme": "FAIL", "a/model-tools": "SKIP", "a/also-nothing": "PASS"} {
		if cases[id].Status != s {
			t.Errorf("%s: %s, want %s (%s)", id, cases[id].Status, s, cases[id].Message)
		}
	}
	if m := cases["a/conversation"].Message; !strings.Contains(m, "the operator answered no") {
		t.Errorf("conversation: %q", m)
	}
	if m := cases["a/theme"].Message; !strings.Contains(m, "did not answer within 500ms") {
		t.Errorf("theme: %q", m)
	}
}

// Ctrl-C during a prompt ends the context: the prompt is abandoned, the
// run stops, and every check has a status for the reports.
func TestCancelDuringAPromptStopsTheRun(t *testing.T) {
	tm := ptytest.Open(t)
	h := New(Options{Operator: operator.New(tm.TTY, tm.TTY, time.Minute), Out: tm.TTY})
	ctx, cancel := context.WithCancel(context.Background())
	done := runAsync(ctx, h, everyKindSuite())
	tm.WaitFor(`"Conformance trigger"`, 0)
	cancel()
	r := await(t, done)
	if cases := byID(r.hr); len(cases) != 6 || cases["a/needs-nothing"].Status != "PASS" || cases["a/theme"].Status != protocol.StatusNotRun {
		t.Errorf("after the cancel: %+v", r.hr.Cases)
	}
}

// A check that gives up on its request while the person is still being
// asked (its time limit in the suite ran out) withdraws the prompt at
// once; the run goes on with the next check.
func TestAPromptIsWithdrawnWhenTheCheckGivesUp(t *testing.T) {
	tm := ptytest.Open(t)
	suite := &fakeSuite{tests: []fakeTest{
		{id: "a/click", req: &protocol.Request{Kind: protocol.KindClickTrigger}},
		{id: "a/theme", req: &protocol.Request{Kind: protocol.KindToggleTheme, To: "dark"}},
	}}
	h := New(Options{Operator: operator.New(tm.TTY, tm.TTY, time.Minute), Out: tm.TTY})
	done := runAsync(context.Background(), h, suite)
	at := tm.WaitFor(`"Conformance trigger"`, 0)
	start := time.Now()
	suite.abandon()
	at = tm.WaitFor("stopped: the check ended before an answer", at)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the prompt was withdrawn %s after the check gave up", d)
	}
	// The next check's prompt follows, and is answered.
	tm.WaitFor("Switch the host to its dark theme", at)
	tm.Type("\r")
	r := await(t, done)
	if cases := byID(r.hr); cases["a/click"].Status != protocol.StatusTimeout || cases["a/theme"].Status != protocol.StatusPass {
		t.Errorf("statuses: %+v", r.hr.Cases)
	}
}
