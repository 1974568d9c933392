package bridge_test

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The benchmarks share one reference host with the suite shown, as a run
// does. Run them with:
//
//	go test -run '^$' -bench . -benchtime 200x -count 5 ./bridge/
var (
	setupOnce sync.Once
	setupErr  error
	benchHost *reference.Host
	benchSB   *bridge.Suite
)

func setup(b *testing.B) (*reference.Host, *bridge.Suite) {
	b.Helper()
	env := e2etest.Env(b, 30*time.Second)
	setupOnce.Do(func() {
		benchHost = reference.New()
		sb, err := runner.SetUp(context.Background(), benchHost, runner.Options{Env: env})
		if err != nil {
			setupErr = err
			return
		}
		benchSB = sb.(*bridge.Suite)
	})
	if setupErr != nil {
		b.Fatal(setupErr)
	}
	return benchHost, benchSB
}

// reportMs stops the timer and reports the median and p99 of ms.
func reportMs(b *testing.B, ms []float64) {
	b.StopTimer()
	b.ReportMetric(percentile(ms, 0.5), "median-ms")
	b.ReportMetric(percentile(ms, 0.99), "p99-ms")
}

func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1))]
}

// BenchmarkDispatchRoundTrip measures, inside the suite, the time from a
// request being parked to its result arriving back: long-poll, decode,
// dispatch to the host method, resolve. The suite parks 200 requests per
// iteration; ns/op is per round trip.
func BenchmarkDispatchRoundTrip(b *testing.B) {
	h, s := setup(b)
	ctx := context.Background()
	var all []float64
	b.ResetTimer()
	for i := 0; i < b.N; i += 200 {
		if err := s.Start(ctx, []string{"diag/round-trip"}); err != nil {
			b.Fatal(err)
		}
		last := 0
		for {
			p, err := s.Poll(ctx, time.Second)
			if err != nil {
				b.Fatal(err)
			}
			if p.State == protocol.StateDone {
				var ms []float64
				if len(p.Results) != 1 || json.Unmarshal(p.Results[0].Value, &ms) != nil {
					b.Fatalf("unexpected diagnostic result %+v", p.Results)
				}
				all = append(all, ms...)
				break
			}
			if p.Request != nil && p.Request.Seq > last {
				last = p.Request.Seq
				if _, err := s.Resolve(ctx, last, hosts.Dispatch(ctx, h, *p.Request)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	reportMs(b, all)
}

// BenchmarkBareEvaluate is the physical floor: one gesture-free evaluate of
// a constant in the same app frame.
func BenchmarkBareEvaluate(b *testing.B) {
	_, s := setup(b)
	ctx := context.Background()
	ev := s.Evaluator()
	var ms []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := ev.Eval(ctx, "1"); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	reportMs(b, ms)
}

// BenchmarkPlaywrightFrameEvaluate is Playwright's own frame.Evaluate on the
// same frame, for comparison (it gives the frame user activation, which is
// why polling does not use it).
func BenchmarkPlaywrightFrameEvaluate(b *testing.B) {
	_, s := setup(b)
	f := s.Frame()
	var ms []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := f.Evaluate("() => 1"); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	reportMs(b, ms)
}
