package soak

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// script is what a fake host's runs end with, one entry per run: the
// status of check a/two, or "infra" for a host whose app never shows.
type script struct {
	mu   sync.Mutex
	runs []string
	n    int
	// interrupt is called by a run whose entry is "interrupt" (Ctrl-C
	// while it ran).
	interrupt func()
}

func (s *script) next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.runs[s.n%len(s.runs)]
	s.n++
	return r
}

// scripted is a browser-free host whose suite ends as its script says.
type scripted struct {
	s   *script
	end string
}

func (h *scripted) Name() string      { return "scripted" }
func (h *scripted) BrowserFree() bool { return true }
func (h *scripted) Setup(context.Context, hosts.Env) error {
	if h.end = h.s.next(); h.end == "infra" {
		return errors.New("the app never showed")
	}
	if h.end == "interrupt" {
		h.s.interrupt()
		return context.Canceled
	}
	return nil
}
func (h *scripted) BindSuite(context.Context, time.Duration) (hosts.SuiteBridge, error) {
	return &doneSuite{end: h.end}, nil
}
func (h *scripted) Teardown(context.Context) error { return nil }

// doneSuite has two checks, already finished: a/one passes, a/two ends
// with end ("stall": a TIMEOUT of an unanswered tools/call).
type doneSuite struct{ end string }

func (s *doneSuite) ListTests(context.Context) (protocol.SuiteList, error) {
	return protocol.SuiteList{ProtocolVersion: protocol.Version, Tests: []protocol.TestMeta{{ID: "a/one"}, {ID: "a/two"}}}, nil
}
func (s *doneSuite) Start(context.Context, []string) error { return nil }
func (s *doneSuite) Poll(context.Context, time.Duration) (protocol.Poll, error) {
	two := protocol.TestResult{ID: "a/two", Status: protocol.Status(s.end)}
	if s.end == "SKIP" {
		two.Message = "skipped\n  for reason 3"
	}
	if s.end == "stall" {
		two = protocol.TestResult{ID: "a/two", Status: protocol.StatusTimeout, Message: "the host never answered: no response to tools/call within 10000ms"}
	}
	return protocol.Poll{Instance: "i", State: protocol.StateDone, Results: []protocol.TestResult{{ID: "a/one", Status: protocol.StatusPass}, two}}, nil
}
func (s *doneSuite) Resolve(context.Context, int, protocol.Result) (bool, error) { return true, nil }

// Every run is compared with the first: a changed status, a stall and an
// infrastructure failure are each counted, by run, and a case whose runs
// all repeat the first is OK.
func TestRunCountsWhatDidNotRepeat(t *testing.T) {
	s := &script{runs: []string{"PASS", "PASS", "SKIP", "stall", "infra", "PASS"}}
	sess, err := conform.Start(context.Background(), conform.Options{Hosts: []string{"scripted"}, NewHost: func(string) (hosts.Host, error) { return &scripted{s: s}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var seen []int
	var told []string
	r := Run(context.Background(), sess, Case{Name: "scripted"}, Options{Runs: 6, Run: conform.RunOptions{AppTimeout: time.Second},
		After: func(_ Case, run int, _ report.HostRun, d []string) {
			seen = append(seen, run)
			told = append(told, d...)
		}})
	if r.Runs != 6 || !slices.Equal(seen, []int{1, 2, 3, 4, 5, 6}) || len(r.Durations) != 6 {
		t.Fatalf("runs %d, seen %v, durations %d", r.Runs, seen, len(r.Durations))
	}
	// Each difference with the message of the run that did not pass.
	want := []string{"run 3: a/two PASS → SKIP: skipped for reason 3", "run 4: a/two PASS → TIMEOUT: the host never answered: no response to tools/call within 10000ms"}
	if !slices.Equal(r.Differing, []int{3, 4}) || !slices.Equal(r.Differences, want) {
		t.Errorf("differing %v: %q, want [3 4]: %q", r.Differing, r.Differences, want)
	}
	if wantTold := []string{strings.TrimPrefix(want[0], "run 3: "), strings.TrimPrefix(want[1], "run 4: ")}; !slices.Equal(told, wantTold) {
		t.Errorf("After was told %q, want %q as the runs ended", told, wantTold)
	}
	if len(r.Stalls) != 1 || !strings.HasPrefix(r.Stalls[0], "run 4: a/two ") {
		t.Errorf("stalls %q", r.Stalls)
	}
	if len(r.Infra) != 1 || !strings.HasPrefix(r.Infra[0], "run 5: ") || !strings.Contains(r.Infra[0], "the app never showed") {
		t.Errorf("infra %q", r.Infra)
	}
	if r.OK() {
		t.Error("a case with differences is OK")
	}
	s2 := &script{runs: []string{"PASS"}}
	sess.Close()
	sess, err = conform.Start(context.Background(), conform.Options{Hosts: []string{"scripted"}, NewHost: func(string) (hosts.Host, error) { return &scripted{s: s2}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if r := Run(context.Background(), sess, Case{Name: "scripted"}, Options{Runs: 3}); !r.OK() || r.Runs != 3 {
		t.Errorf("three equal runs: %+v", r)
	}
}

// A run cut short by an interrupt is no run: the table holds the runs
// that finished, and nothing is an infrastructure failure.
func TestRunLeavesOutTheInterruptedRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &script{runs: []string{"PASS", "interrupt"}, interrupt: cancel}
	sess, err := conform.Start(context.Background(), conform.Options{Hosts: []string{"scripted"}, NewHost: func(string) (hosts.Host, error) { return &scripted{s: s}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	r := Run(ctx, sess, Case{Name: "scripted"}, Options{Runs: 5, Run: conform.RunOptions{AppTimeout: time.Second}})
	if r.Runs != 1 || len(r.Durations) != 1 || len(r.Infra) != 0 || !r.OK() {
		t.Errorf("after an interrupt in run 2: %+v, want run 1 alone, OK", r)
	}
}

// The relay remount case is the reference host re-rendering its View,
// over the relay; a third-party host is itself; an unknown name is the
// registry's usage error.
func TestCaseNamed(t *testing.T) {
	c, err := CaseNamed(RelayRemount, hosts.Params{})
	if err != nil || c.Params.Name != "reference" || !slices.Equal(c.Params.Variations, []string{"rerender-once"}) || c.Bridge != "relay" {
		t.Errorf("%s: %+v %v", RelayRemount, c, err)
	}
	if _, err := CaseNamed("zz-nope", hosts.Params{}); !errors.Is(err, hosts.ErrUsage) {
		t.Errorf("an unknown case: %v", err)
	}
}

// Load keeps the CPUs busy with processes it stops again.
func TestLoadStartsAndStops(t *testing.T) {
	pids, stop, err := Load(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("busy loop %d is not running: %v", pid, err)
		}
	}
	stop()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("busy loop %d outlived stop: %v", pid, err)
		}
	}
}
