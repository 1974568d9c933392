package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/bench"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// diagSuite plays the suite's side of diag/round-trip without a browser: it
// parks readModelToolList requests one after the other and measures each
// one from parking to its result, as fixtures/suite/diag.ts does. Poll has
// the engine's semantics: it answers at once when something changed since
// the last poll, otherwise when something changes or after wait.
type diagSuite struct {
	mu         sync.Mutex
	n          int
	gapMs      int
	configured string
	instance   string
	state      protocol.State
	pending    *protocol.Request
	parkedAt   time.Time
	seq        int
	ms         []float64
	results    []protocol.TestResult
	version    int
	polled     int
	changed    chan struct{}
	resolved   chan struct{}
	status     protocol.Status // verdict to report (PASS unless a test says)
	remountAt  int             // change the instance after this many requests
}

func newDiagSuite() *diagSuite {
	return &diagSuite{n: 200, instance: "a", state: protocol.StateRunning, changed: make(chan struct{}), polled: -1, status: protocol.StatusPass}
}

// configure is the bench's Configure: it accepts only the assignment of
// the diagnostic's global and reads the settings from it.
func (s *diagSuite) configure(_ context.Context, expr string) error {
	prefix := "globalThis." + bench.DiagConfigGlobal + " = "
	if !strings.HasPrefix(expr, prefix) {
		return errors.New("unexpected script " + expr)
	}
	var cfg struct{ RoundTrips, GapMs int }
	if err := json.Unmarshal([]byte(strings.TrimPrefix(expr, prefix)), &cfg); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.configured = expr
	if cfg.RoundTrips > 0 {
		s.n = cfg.RoundTrips
	}
	s.gapMs = cfg.GapMs
	return nil
}

func (s *diagSuite) bump() { // with mu held
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *diagSuite) ListTests(context.Context) (protocol.SuiteList, error) {
	return protocol.SuiteList{ProtocolVersion: protocol.Version}, nil
}

func (s *diagSuite) Start(_ context.Context, ids []string) error {
	if len(ids) != 1 || ids[0] != bench.DiagRoundTrip {
		return errors.New("the bench must start only the diagnostic")
	}
	s.mu.Lock()
	s.state, s.results = protocol.StateRunning, nil
	s.bump()
	n := s.n
	s.mu.Unlock()
	go func() {
		for i := 0; i < n; i++ {
			s.mu.Lock()
			if s.remountAt > 0 && i == s.remountAt {
				s.instance = "b"
			}
			s.seq++
			s.pending = &protocol.Request{Seq: s.seq, Kind: protocol.KindReadModelToolList}
			s.parkedAt = time.Now()
			s.resolved = make(chan struct{})
			done := s.resolved
			s.bump()
			s.mu.Unlock()
			<-done
		}
		s.mu.Lock()
		v, _ := json.Marshal(s.ms)
		s.results = []protocol.TestResult{{ID: bench.DiagRoundTrip, Status: s.status, Value: v, Message: "verdict"}}
		s.state = protocol.StateDone
		s.bump()
		s.mu.Unlock()
	}()
	return nil
}

func (s *diagSuite) snapshot() protocol.Poll { // with mu held
	s.polled = s.version
	return protocol.Poll{Instance: s.instance, State: s.state, Request: s.pending, Results: s.results}
}

func (s *diagSuite) Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	s.mu.Lock()
	if s.version != s.polled || s.state == protocol.StateDone {
		defer s.mu.Unlock()
		return s.snapshot(), nil
	}
	ch := s.changed
	s.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
		return protocol.Poll{}, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot(), nil
}

func (s *diagSuite) Resolve(_ context.Context, seq int, r protocol.Result) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil || s.pending.Seq != seq || !r.OK {
		return false, nil
	}
	s.ms = append(s.ms, float64(time.Since(s.parkedAt).Microseconds())/1000)
	s.pending = nil
	close(s.resolved)
	s.bump()
	return true, nil
}

// toolHost answers readModelToolList and counts the calls.
type toolHost struct {
	mu    sync.Mutex
	calls int
}

func (h *toolHost) Name() string                           { return "tools" }
func (h *toolHost) Setup(context.Context, hosts.Env) error { return errors.New("not used") }
func (h *toolHost) Teardown(context.Context) error         { return nil }
func (h *toolHost) ReadModelToolList(context.Context, protocol.Request) (protocol.Result, error) {
	h.mu.Lock()
	h.calls++
	h.mu.Unlock()
	return protocol.Result{OK: true, Value: json.RawMessage(`[]`)}, nil
}

// The long-poll answers each request as soon as it is parked; a fixed
// interval makes every back-to-back request wait about one interval.
func TestMeasureRoundTripsLongPollVersusFixedInterval(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	s, h := newDiagSuite(), &toolHost{}
	long, err := bench.MeasureRoundTrips(ctx, s, h, bench.RoundTripOptions{Policy: bench.LongPoll, RoundTrips: 50, Configure: s.configure})
	if err != nil {
		t.Fatal(err)
	}
	if len(long.MS) != 50 || h.calls != 50 {
		t.Fatalf("long-poll: %d round trips, %d host calls; want 50 and 50", len(long.MS), h.calls)
	}
	if !strings.Contains(s.configured, `"roundTrips":50`) {
		t.Errorf("the diagnostic was configured with %q", s.configured)
	}
	// In-process, a long-poll round trip is microseconds; 20 ms leaves
	// room for a loaded machine and is still far below the interval.
	if m := long.Median(); m > 20 {
		t.Errorf("long-poll median %.2f ms: the runner waited instead of answering at once", m)
	}
	// One poll sees the request, one sees the resolve's change at most.
	if long.Polls > 2*50+3 {
		t.Errorf("long-poll made %d polls for 50 requests", long.Polls)
	}

	const interval = 60 * time.Millisecond
	s2, h2 := newDiagSuite(), &toolHost{}
	fixed, err := bench.MeasureRoundTrips(ctx, s2, h2, bench.RoundTripOptions{Policy: bench.FixedInterval, Interval: interval, RoundTrips: 6, Configure: s2.configure})
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.MS) != 6 || h2.calls != 6 {
		t.Fatalf("fixed: %d round trips, %d host calls; want 6 and 6", len(fixed.MS), h2.calls)
	}
	// Back to back, each request after the first is parked right after the
	// previous resolve and seen at the next poll, one interval later.
	for i, ms := range fixed.MS[1:] {
		if ms < float64(interval.Milliseconds())*0.9 {
			t.Errorf("fixed-interval round trip %d took %.1f ms, less than the %s interval", i+1, ms, interval)
		}
	}
	if fixed.Wall < 6*interval {
		t.Errorf("fixed-interval run took %s for 6 requests at %s", fixed.Wall, interval)
	}
	if fixed.Median() < 5*long.Median() {
		t.Errorf("fixed median %.2f ms not clearly above long-poll median %.2f ms", fixed.Median(), long.Median())
	}
}

func TestMeasureRoundTripsDefaultsAndErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Without settings nothing is evaluated and the suite's default applies.
	s := newDiagSuite()
	s.n = 7
	r, err := bench.MeasureRoundTrips(ctx, s, &toolHost{}, bench.RoundTripOptions{})
	if err != nil || len(r.MS) != 7 || s.configured != "" {
		t.Fatalf("defaults: %d round trips, configured %q, err %v", len(r.MS), s.configured, err)
	}
	// Settings without an evaluator are refused rather than ignored.
	if _, err := bench.MeasureRoundTrips(ctx, newDiagSuite(), &toolHost{}, bench.RoundTripOptions{RoundTrips: 5}); err == nil {
		t.Error("round trips without Configure were accepted")
	}
	if _, err := bench.MeasureRoundTrips(ctx, newDiagSuite(), &toolHost{}, bench.RoundTripOptions{Policy: bench.FixedInterval}); err == nil {
		t.Error("a fixed interval of 0 was accepted")
	}
	// A diagnostic that did not pass is an error, with its message.
	bad := newDiagSuite()
	bad.n, bad.status = 2, protocol.StatusTimeout
	if _, err := bench.MeasureRoundTrips(ctx, bad, &toolHost{}, bench.RoundTripOptions{}); err == nil || !strings.Contains(err.Error(), "TIMEOUT verdict") {
		t.Errorf("a TIMEOUT verdict gave %v", err)
	}
	// A remount mid-measurement is an error, not a silently short sample.
	rm := newDiagSuite()
	rm.n, rm.remountAt = 5, 2
	if _, err := bench.MeasureRoundTrips(ctx, rm, &toolHost{}, bench.RoundTripOptions{}); !errors.Is(err, runner.ErrSuiteLost) {
		t.Errorf("a remount gave %v, want ErrSuiteLost", err)
	}
	// Cancelling stops a fixed-interval loop promptly.
	slow := newDiagSuite()
	slow.n = 1000
	cctx, ccancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer ccancel()
	t0 := time.Now()
	// A 10 s interval: a loop that noticed only at its next tick would
	// take over 10 s, so the 5 s bound leaves a loaded machine room.
	if _, err := bench.MeasureRoundTrips(cctx, slow, &toolHost{}, bench.RoundTripOptions{Policy: bench.FixedInterval, Interval: 10 * time.Second}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled fixed-interval run: %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the fixed-interval loop took %s to notice its context ended", d)
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if bench.Quantile(xs, 0.5) != 3 || bench.Quantile(xs, 0) != 1 || bench.Quantile(xs, 1) != 5 {
		t.Errorf("quantiles of %v: %v %v %v", xs, bench.Quantile(xs, 0.5), bench.Quantile(xs, 0), bench.Quantile(xs, 1))
	}
	if xs[0] != 5 {
		t.Error("Quantile sorted its input in place")
	}
	if !math.IsNaN(bench.Quantile(nil, 0.5)) {
		t.Error("the quantile of nothing is not NaN")
	}
}
