package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// stepRelay records the runner's use of the relay.
type stepRelay struct {
	suite  hosts.SuiteBridge
	steps  *[]string
	awaits int
}

func (r *stepRelay) Arm() { *r.steps = append(*r.steps, "arm") }
func (r *stepRelay) Await(ctx context.Context) (hosts.SuiteBridge, error) {
	r.awaits++
	*r.steps = append(*r.steps, "await")
	return r.suite, nil
}

// frameHost shows its app and offers its frame; it records the steps and
// the bridge it is handed.
type frameHost struct {
	fakeHost
	suite   hosts.SuiteBridge
	steps   *[]string
	bound   time.Duration
	watched hosts.SuiteBridge
}

func (h *frameHost) Setup(context.Context, hosts.Env) error {
	*h.steps = append(*h.steps, "setup")
	return nil
}
func (h *frameHost) BindSuite(_ context.Context, d time.Duration) (hosts.SuiteBridge, error) {
	*h.steps = append(*h.steps, "bind")
	h.bound = d
	return h.suite, nil
}
func (h *frameHost) WatchSuite(sb hosts.SuiteBridge) { h.watched = sb }

// frameless shows its app but offers no frame (a desktop host).
type frameless struct {
	fakeHost
	steps *[]string
}

func (h *frameless) Setup(context.Context, hosts.Env) error {
	*h.steps = append(*h.steps, "setup")
	return nil
}

// The runner, not the host, decides how the suite is reached: in the
// frame of a host that offers one under the evaluate bridge, through the
// relay (armed before Setup, so the View carries the run's token) under
// --bridge relay or for a host with no frame; BindSuite is never called
// under relay. The bound bridge is handed to a SuiteWatcher.
func TestTheRunnerChoosesTheBridge(t *testing.T) {
	one := func() *fakeSuite { return newFake(map[string][]protocol.Request{}, "a/x") }
	for _, c := range []struct {
		name   string
		bridge string
		frame  bool
		want   string
	}{
		{"frame, evaluate", BridgeEvaluate, true, "setup,bind"},
		{"frame, default", "", true, "setup,bind"},
		{"frame, relay", BridgeRelay, true, "arm,setup,await"},
		{"no frame, evaluate", BridgeEvaluate, false, "arm,setup,await"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var steps []string
			rl := &stepRelay{suite: one(), steps: &steps}
			var h hosts.Host = &frameless{steps: &steps}
			fh := &frameHost{suite: one(), steps: &steps}
			if c.frame {
				h = fh
			}
			hr, err := Run(context.Background(), h, Options{Bridge: c.bridge, Relay: rl})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(steps, ","); got != c.want {
				t.Errorf("steps %s, want %s", got, c.want)
			}
			if len(hr.Cases) != 1 || hr.Cases[0].Status != protocol.StatusPass {
				t.Errorf("cases %+v", hr.Cases)
			}
			if c.frame {
				want := hosts.SuiteBridge(fh.suite)
				if c.bridge == BridgeRelay {
					want = rl.suite
				}
				if fh.watched != want {
					t.Errorf("the watcher was handed %v, want the bound bridge %v", fh.watched, want)
				}
				if c.bridge != BridgeRelay && fh.bound != hosts.DefaultAppTimeout {
					t.Errorf("BindSuite got %s, want the default app timeout %s", fh.bound, hosts.DefaultAppTimeout)
				}
			}
		})
	}
	// A host with no frame in a run with no relay cannot be reached: an
	// infrastructure failure before Setup.
	var steps []string
	_, err := Run(context.Background(), &frameless{steps: &steps}, Options{})
	var ie *InfraError
	if !errors.As(err, &ie) || !errors.Is(err, ErrNoRelay) || len(steps) != 0 {
		t.Errorf("no relay: %v, steps %v", err, steps)
	}
}
