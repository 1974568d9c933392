package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// This file is measurement only: `mcpconform bench` uses it to compare the
// runner's long-poll with a fixed polling interval. Run and Drive never
// sleep; the fixed interval below exists only as the baseline the README
// quotes the long-poll against.

// DiagRoundTrip is the suite's diagnostic that parks requests one after the
// other and measures, in the page, each one's round trip.
const DiagRoundTrip = "diag/round-trip"

// DiagConfigGlobal is the global the diagnostic reads its settings from
// (fixtures/suite/diag.ts).
const DiagConfigGlobal = "__mcpConformanceDiag"

// PollPolicy is how MeasureRoundTrips services the suite.
type PollPolicy int

const (
	// LongPoll is the runner's policy: poll(wait) settles as soon as a
	// request is parked or a test finishes.
	LongPoll PollPolicy = iota
	// FixedInterval polls without waiting and then sleeps Interval, the
	// policy of the TypeScript runner this design comes from (800 ms).
	// Baseline only.
	FixedInterval
)

func (p PollPolicy) String() string {
	if p == FixedInterval {
		return "fixed-interval"
	}
	return "long-poll"
}

// RoundTripOptions configure one measurement.
type RoundTripOptions struct {
	Policy PollPolicy
	// Interval is the fixed polling interval (FixedInterval only).
	Interval time.Duration
	// PollWait bounds each long-poll (LongPoll only; default 1 s, as Run).
	PollWait time.Duration
	// RoundTrips is how many requests the diagnostic parks (0: its default,
	// 200); GapMs makes it wait a random [0, GapMs) ms before each one (0:
	// back to back). Both need Configure.
	RoundTrips int
	GapMs      int
	// Configure evaluates a script in the app frame without a user gesture
	// (for a bridge.Suite: its Evaluator's Eval). It sets the diagnostic's
	// settings before the start.
	Configure func(ctx context.Context, expr string) error
	// ConfigureDiag, when set, is used instead of Configure: it hands the
	// settings to the suite another way (the relay bridge's).
	ConfigureDiag func(ctx context.Context, cfg map[string]int) error
}

// RoundTrips is one measurement.
type RoundTrips struct {
	Policy PollPolicy
	// MS are the page-measured round trips, request parked → result back
	// in the suite, in milliseconds, in order.
	MS []float64
	// Wall is start → the diagnostic's verdict seen by the runner; Polls
	// how many polls the runner made meanwhile (a resolve that long-polled
	// in the same evaluate counts as one).
	Wall  time.Duration
	Polls int
}

// Median and P99 of the round trips, in milliseconds.
func (r RoundTrips) Median() float64 { return Quantile(r.MS, 0.5) }
func (r RoundTrips) P99() float64    { return Quantile(r.MS, 0.99) }

// Quantile is the nearest-rank q-quantile of xs (NaN when empty): the
// element at index round(q·(n−1)) of the sorted values.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(math.Round(q*float64(len(s)-1)))]
}

// MeasureRoundTrips runs the round-trip diagnostic through sb, servicing
// its requests on h with the given polling policy, and returns the round
// trips the page measured.
func MeasureRoundTrips(ctx context.Context, sb hosts.SuiteBridge, h hosts.Host, o RoundTripOptions) (RoundTrips, error) {
	res := RoundTrips{Policy: o.Policy}
	if o.PollWait <= 0 {
		o.PollWait = time.Second
	}
	if o.Policy == FixedInterval && o.Interval <= 0 {
		return res, errors.New("a fixed polling interval must be positive")
	}
	if o.RoundTrips < 0 || o.GapMs < 0 {
		return res, errors.New("round trips and gap must not be negative")
	}
	if o.RoundTrips > 0 || o.GapMs > 0 {
		cfg := map[string]int{"gapMs": o.GapMs}
		if o.RoundTrips > 0 {
			cfg["roundTrips"] = o.RoundTrips
		}
		var err error
		switch {
		case o.ConfigureDiag != nil:
			err = o.ConfigureDiag(ctx, cfg)
		case o.Configure != nil:
			b, _ := json.Marshal(cfg)
			err = o.Configure(ctx, "globalThis."+DiagConfigGlobal+" = "+string(b))
		default:
			return res, errors.New("setting the diagnostic's round trips or gap needs an evaluator in the app frame")
		}
		if err != nil {
			return res, fmt.Errorf("configuring %s: %w", DiagRoundTrip, err)
		}
	}
	t0 := time.Now()
	if err := sb.Start(ctx, []string{DiagRoundTrip}); err != nil {
		return res, fmt.Errorf("starting %s: %w", DiagRoundTrip, err)
	}
	instance, lastSeq := "", 0
	var next *protocol.Poll
	for {
		wait := o.PollWait
		if o.Policy == FixedInterval {
			wait = 0
		}
		var p protocol.Poll
		var err error
		if next != nil {
			p, next = *next, nil
		} else {
			p, err = sb.Poll(ctx, wait)
			res.Polls++
		}
		if err != nil {
			return res, fmt.Errorf("polling %s: %w", DiagRoundTrip, err)
		}
		if instance == "" {
			instance = p.Instance
		} else if p.Instance != instance {
			return res, fmt.Errorf("%w: the app was remounted during %s", runner.ErrSuiteLost, DiagRoundTrip)
		}
		if p.State == protocol.StateDone {
			res.Wall = time.Since(t0)
			return res, diagValue(p, &res)
		}
		if p.Request != nil && p.Request.Seq > lastSeq {
			lastSeq = p.Request.Seq
			r := hosts.Dispatch(ctx, h, *p.Request)
			if o.Policy == FixedInterval {
				// The baseline resolves and polls separately, as the
				// TypeScript runner does.
				if _, err := sb.Resolve(ctx, lastSeq, r); err != nil {
					return res, fmt.Errorf("resolving request %d: %w", lastSeq, err)
				}
			} else {
				np, err := runner.Answer(ctx, sb, lastSeq, r, wait)
				if err != nil {
					return res, fmt.Errorf("resolving request %d: %w", lastSeq, err)
				}
				// One evaluate both resolved and long-polled: count it as a poll.
				next = np
				if np != nil {
					res.Polls++
				}
			}
		}
		if o.Policy == FixedInterval {
			t := time.NewTimer(o.Interval)
			select {
			case <-ctx.Done():
				t.Stop()
				return res, ctx.Err()
			case <-t.C:
			}
		}
	}
}

func diagValue(p protocol.Poll, res *RoundTrips) error {
	for _, r := range p.Results {
		if r.ID != DiagRoundTrip {
			continue
		}
		if r.Status != protocol.StatusPass {
			return fmt.Errorf("%s: %s %s", DiagRoundTrip, r.Status, r.Message)
		}
		if err := json.Unmarshal(r.Value, &res.MS); err != nil {
			return fmt.Errorf("%s: malformed value: %w", DiagRoundTrip, err)
		}
		if len(res.MS) == 0 {
			return fmt.Errorf("%s measured nothing", DiagRoundTrip)
		}
		return nil
	}
	return fmt.Errorf("the suite finished without a verdict for %s (does it have the diagnostic?)", DiagRoundTrip)
}
