package connect_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts/connect"
	"github.com/mcpconform/mcpconform/internal/operator"
	"github.com/mcpconform/mcpconform/internal/testkit/connecttest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/ptytest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// signalWriter is an io.Writer that remembers what it was given and
// closes ready once it has seen want.
type signalWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	want  string
	ready chan struct{}
	once  sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// connectRun is the runner's options for a connect run (no browser: the
// person's page is not the runner's; a relay of its own), and the person
// who uses the host the run tests.
func connectRun(t *testing.T) (runner.Options, *connecttest.Person) {
	t.Helper()
	sess := e2etest.Session(t)
	env := sess.Env()
	env.Browser = nil
	env.AppTimeout = 60 * time.Second
	env.Logf = t.Logf
	rl := sess.NewRelay()
	t.Cleanup(func() { rl.Close() })
	return runner.Options{Env: env, Relay: rl, Logf: t.Logf}, connecttest.NewPerson(t, sess.Browser, env.ServerURL, env.SecondServerURL)
}

type ran struct {
	hr  report.HostRun
	err error
}

// operatorRun starts, in the background, a connect run of the checks
// matching pattern with an operator (prompts of the given limit) on a
// pseudo-terminal, and has the person ask for the suite once the run has
// printed its instructions.
func operatorRun(t *testing.T, pattern string, prompt time.Duration) (*connecttest.Person, *ptytest.Terminal, <-chan ran) {
	t.Helper()
	ro, p := connectRun(t)
	tm := ptytest.Open(t)
	tm.Timeout = 2 * time.Minute // the run takes a while to print its instructions
	h := connect.New(connect.Options{Operator: operator.New(tm.TTY, tm.TTY, prompt), Out: tm.TTY})
	sel, err := runner.ParseSelection([]string{pattern}, nil, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan ran, 1)
	go func() {
		hr, err := runner.Run(context.Background(), h, runner.Options{Env: ro.Env, Relay: ro.Relay, Selection: sel, Stall: 3 * time.Minute, Logf: t.Logf})
		done <- ran{hr, err}
	}()
	tm.WaitFor("Waiting up to", 0)
	if err := p.AskForTheSuite(); err != nil {
		t.Fatal(err)
	}
	return p, tm, done
}

// The reference host, opened in Chromium by the "person" (not by the
// runner), tested with --host connect: the suite reaches the runner only
// through the relay, nothing is evaluated in any frame, the checks that
// need no capability pass as they do on the reference host, and the rest
// skip naming the capability.
func TestConnectTestsAHostItNeverTouches(t *testing.T) {
	ro, p := connectRun(t)

	out := &signalWriter{want: "Waiting up to", ready: make(chan struct{})}
	asked := make(chan error, 1)
	go func() {
		select {
		case <-out.ready:
			asked <- p.AskForTheSuite()
		case <-time.After(30 * time.Second):
			asked <- context.DeadlineExceeded
		}
	}()
	var evals atomic.Int64
	stop := bridge.ObserveEvaluations(func(playwright.Frame, string) { evals.Add(1) })
	hr, err := runner.Run(context.Background(), connect.New(connect.Options{Out: out}), runner.Options{Env: ro.Env, Relay: ro.Relay, Stall: 2 * time.Minute, Logf: t.Logf})
	stop()
	if aerr := <-asked; aerr != nil {
		t.Fatalf("the person could not ask for the suite: %v", aerr)
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if n := evals.Load(); n != 0 {
		t.Errorf("%d evaluations during a connect run: it must reach the suite through the relay alone", n)
	}
	if !strings.Contains(out.String(), ro.Env.ServerURL) {
		t.Errorf("the instructions do not give the server URL %s:\n%s", ro.Env.ServerURL, out.String())
	}
	judged, skipped := 0, 0
	for _, c := range hr.Cases {
		switch {
		case len(c.Needs) == 0 && c.Status == protocol.StatusPass:
			judged++
		case c.Status == protocol.StatusSkip && strings.Contains(c.Message, "unsupported: "):
			skipped++
		case c.Status == protocol.StatusSkip || c.Status == protocol.StatusPass || c.Status == protocol.StatusOptional:
			// a check with a fallback, or one skipped for the host's own reasons
		default:
			t.Errorf("%s (needs %v): %s %s", c.ID, c.Needs, c.Status, c.Message)
		}
	}
	if judged < 20 || skipped < 5 {
		t.Errorf("%d checks that need no capability passed and %d skipped naming one: want ≥ 20 and ≥ 5", judged, skipped)
	}
	if hr.HostName == "" {
		t.Error("the report does not name the host from ui/initialize")
	}
	t.Logf("%d checks: %d judged without a capability, %d skipped naming one; host %s %s", len(hr.Cases), judged, skipped, hr.HostName, hr.HostVersion)
}

// With --operator on a terminal: the run asks the person to click the
// View's trigger, the person does (in their own browser) and presses
// Enter, and the check that needs the click passes.
func TestConnectOperatorClicksTheTrigger(t *testing.T) {
	p, tm, done := operatorRun(t, "messages/*", 30*time.Second)
	// Answer every prompt the way a person would: click the trigger when
	// asked, confirm seeing the conversation's marker when it is there.
	clicks := 0
	seen := 0
	// The whole run's bound: the catalogue with an operator takes about a
	// minute; a run that never ends fails here instead of at go test's
	// timeout.
	giveUp := time.After(5 * time.Minute)
	for {
		select {
		case <-giveUp:
			t.Fatalf("the run had not ended after 5 minutes:\n%s", tm.Screen())
		case r := <-done:
			if r.err != nil {
				t.Fatalf("run: %v\n%s", r.err, tm.Screen())
			}
			if clicks == 0 {
				t.Fatalf("the operator was never asked to click the trigger:\n%s", tm.Screen())
			}
			passedWithClick := 0
			for _, c := range r.hr.Cases {
				for _, k := range c.Needs {
					if k == protocol.KindClickTrigger && c.Status == protocol.StatusPass {
						passedWithClick++
					}
				}
				t.Logf("%s %s %s", c.ID, c.Status, c.Message)
			}
			if passedWithClick == 0 {
				t.Errorf("no check that needs clickTrigger passed after the operator clicked")
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		last, n, ok := connecttest.NewPrompt(tm.Screen(), seen)
		if !ok {
			continue // none, or still being written
		}
		seen = n
		switch {
		case strings.Contains(last, "· clickTrigger]"):
			if err := p.ClickTrigger(); err != nil {
				t.Errorf("clicking the trigger: %v", err)
				tm.Type("n\r")
				continue
			}
			clicks++
			tm.Type("\r")
		case strings.Contains(last, "· conversationContains]"):
			// A person looks until it appears (or gives up).
			if p.LooksForMarker(connecttest.Marker(last)) == nil {
				tm.Type("y\r")
			} else {
				tm.Type("n\r")
			}
		default:
			tm.Type("n\r")
		}
	}
}

// Over the real relay: a prompt left unanswered longer than the check's
// own limit in the suite (10 s here) is withdrawn as soon as the suite
// gives up on the request, and the check is TIMEOUT, not the prompt's
// "no answer". The check's cleanup (switch the theme back) is then asked,
// since the suite waits for that one.
func TestConnectWithdrawsAPromptWhenTheCheckGivesUp(t *testing.T) {
	_, tm, done := operatorRun(t, "context/theme-change-notifies", 2*time.Minute)
	// Well before the prompt's 2 minutes, it is withdrawn: once the
	// check's own 10 s and the minute the suite grants a request that is
	// with the runner (engine.ts DRIVER_GRACE_MS) have passed.
	tm.Timeout = 100 * time.Second
	tm.WaitFor("stopped: the check ended before an answer", 0)
	// The check's cleanup then asks to switch the theme back; that
	// request the suite does wait for, so it is asked. The person cannot.
	tm.WaitFor("[operator 2 · toggleTheme] Switch the host to its light theme", 0)
	tm.Type("n\r")
	var hr report.HostRun
	select {
	case r := <-done:
		if r.err != nil {
			t.Errorf("run: %v", r.err)
		}
		hr = r.hr
	case <-time.After(30 * time.Second):
		t.Fatalf("the run did not end:\n%s", tm.Screen())
	}
	if len(hr.Cases) != 1 || hr.Cases[0].Status != protocol.StatusTimeout {
		t.Errorf("cases: %+v", hr.Cases)
	}
}
