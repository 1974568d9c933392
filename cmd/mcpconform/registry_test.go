package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// paramHost is a built-in host added the way every built-in is: its init
// calls hosts.Register (a real one would sit in its own package, imported
// by hosts/builtin), with a constructor that reads its parameters: a
// setting of its own from the run's environment, and the terminal its
// message goes to. Nothing else in cmd names it. It drives no browser and
// offers, as its app frame, a suite of one check that asks it to read the
// console and passes when the answer carries the setting.
type paramHost struct {
	url string
	out io.Writer
}

func init() {
	hosts.Register("zz-registered", func(p hosts.Params) (hosts.Host, error) {
		if err := p.Unaltered(); err != nil {
			return nil, err
		}
		return &paramHost{url: p.Getenv("MCPCONFORM_ZZ_REGISTERED_URL"), out: p.Out}, nil
	})
}

func (*paramHost) Name() string      { return "zz-registered" }
func (*paramHost) BrowserFree() bool { return true }
func (h *paramHost) Setup(_ context.Context, env hosts.Env) error {
	if h.out == nil { // no terminal: the run's log
		env.Logf("zz-registered: showing the app at %s", h.url)
		return nil
	}
	fmt.Fprintf(h.out, "zz-registered: showing the app at %s\n", h.url)
	return nil
}
func (*paramHost) BindSuite(context.Context, time.Duration) (hosts.SuiteBridge, error) {
	return &oneCheck{}, nil
}
func (*paramHost) Teardown(context.Context) error { return nil }
func (h *paramHost) ReadConsole(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: true, Value: []byte(fmt.Sprintf("[%q]", h.url))}, nil
}

// oneCheck is a suite of one check, zz/registered: it parks a readConsole
// request and passes when the answer names the host's setting.
type oneCheck struct {
	mu      sync.Mutex
	started bool
	answer  *protocol.Result
}

func (s *oneCheck) ListTests(context.Context) (protocol.SuiteList, error) {
	return protocol.SuiteList{ProtocolVersion: protocol.Version, Tests: []protocol.TestMeta{{ID: "zz/registered", Clause: protocol.ClauseMust, Edition: protocol.EditionStable}}}, nil
}
func (s *oneCheck) Start(context.Context, []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = true
	return nil
}
func (s *oneCheck) Poll(context.Context, time.Duration) (protocol.Poll, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := protocol.Poll{Instance: "one", State: protocol.StateRunning, RunningID: "zz/registered"}
	switch {
	case s.answer == nil:
		p.Request = &protocol.Request{Seq: 1, Kind: protocol.KindReadConsole, Pattern: "x"}
	case strings.Contains(string(s.answer.Value), "http://127.0.0.1:9/zz"):
		p.State, p.Results = protocol.StateDone, []protocol.TestResult{{ID: "zz/registered", Status: protocol.StatusPass}}
	default:
		p.State, p.Results = protocol.StateDone, []protocol.TestResult{{ID: "zz/registered", Status: protocol.StatusFail, Message: "answer " + string(s.answer.Value)}}
	}
	return p, nil
}
func (s *oneCheck) Resolve(_ context.Context, _ int, r protocol.Result) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = &r
	return true, nil
}

// `mcpconform hosts` lists a host registered that way, with its
// capabilities, and --check knows it as a built-in.
func TestHostsListsARegisteredHost(t *testing.T) {
	out, err, code := hostsCLI(t, nil)
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "zz-registered" {
			row = f
		}
	}
	if len(row) != 3 || row[1] != "built-in" || row[2] != "readConsole" {
		t.Errorf("the registered host's row: %q\n%s", row, out)
	}
	out, err, code = hostsCLI(t, nil, "--check", "zz-registered")
	if code != ExitOK || !strings.Contains(out, "zz-registered is a built-in host") || !strings.Contains(out, "capabilities: readConsole") {
		t.Errorf("--check: exit %d %v\n%s", code, err, out)
	}
}

// `mcpconform run --host zz-registered` builds the host with the run's
// parameters (its setting from the environment, the terminal for its
// message) and runs the suite it shows; a defect, which it does not take,
// is refused with exit 2 before anything starts.
func TestRunBuildsARegisteredHostWithItsParameters(t *testing.T) {
	t.Setenv("MCPCONFORM_ZZ_REGISTERED_URL", "http://127.0.0.1:9/zz")
	var o, e strings.Builder
	code := runIO([]string{"run", "--host", "zz-registered", "--evidence-dir", "", "--tap", "-"}, strings.NewReader(""), &o, &e)
	if code != ExitOK || !strings.Contains(o.String(), "ok 1 - zz/registered") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, o.String(), e.String())
	}
	if !strings.Contains(e.String(), "zz-registered: showing the app at http://127.0.0.1:9/zz") {
		t.Errorf("the host's message did not reach the terminal (Params.Out):\n%s", e.String())
	}
	e.Reset()
	code = runIO([]string{"run", "--host", "zz-registered", "--host-defect", "no-visibility-guard", "--evidence-dir", ""}, strings.NewReader(""), &o, &e)
	if code != ExitUsage || !strings.Contains(e.String(), `--host-defect applies to the reference host only, not "zz-registered"`) {
		t.Errorf("a defect for a host that takes none: exit %d\n%s", code, e.String())
	}
}

// `mcpconform soak` runs a case again and again and reports what did not
// repeat; the registered host repeats itself. An unknown case is exit 2.
func TestSoakRunsACaseAgain(t *testing.T) {
	t.Setenv("MCPCONFORM_ZZ_REGISTERED_URL", "http://127.0.0.1:9/zz")
	var o, e strings.Builder
	code := runIO([]string{"soak", "--case", "zz-registered", "--runs", "2", "--load", "0"}, strings.NewReader(""), &o, &e)
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, o.String(), e.String())
	}
	var row []string
	for _, l := range strings.Split(o.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "zz-registered" {
			row = f
		}
	}
	if len(row) < 5 || strings.Join(row[1:5], " ") != "2 0 0 0" {
		t.Errorf("the case's row %q, want 2 runs and no difference, stall or infrastructure failure:\n%s", row, o.String())
	}
	if strings.Count(e.String(), "soak zz-registered ") != 2 {
		t.Errorf("progress lines:\n%s", e.String())
	}
	o.Reset()
	e.Reset()
	if code := runIO([]string{"soak", "--case", "zz-nope", "--runs", "1"}, strings.NewReader(""), &o, &e); code != ExitUsage || !strings.Contains(e.String(), `unknown host "zz-nope"`) {
		t.Errorf("an unknown case: exit %d\n%s", code, e.String())
	}
}
