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

// setupHost offers a prepared fake suite as its app frame's, so Run's own
// steps (setup, binding, teardown) run without a browser.
type setupHost struct {
	fakeHost
	suite     hosts.SuiteBridge
	setupErr  error
	tornDown  bool
	setupWait time.Duration
}

func (h *setupHost) Setup(context.Context, hosts.Env) error {
	time.Sleep(h.setupWait)
	return h.setupErr
}
func (h *setupHost) BindSuite(context.Context, time.Duration) (hosts.SuiteBridge, error) {
	return h.suite, nil
}
func (h *setupHost) Teardown(context.Context) error { h.tornDown = true; return nil }

// OnPhase reports every step of a run in order, each with its own
// duration, and a failed setup still reports setup and teardown.
func TestOnPhaseTimesEachStep(t *testing.T) {
	f := newFake(map[string][]protocol.Request{"a/click": {{Kind: protocol.KindClickTrigger}}}, "a/click")
	h := &setupHost{suite: f, setupWait: 30 * time.Millisecond}
	var names []string
	var setup time.Duration
	hr, err := Run(context.Background(), h, Options{OnPhase: func(p string, d time.Duration) {
		names = append(names, p)
		if d < 0 {
			t.Errorf("phase %s took %v", p, d)
		}
		if p == PhaseSetup {
			setup = d
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "setup,listTests,run,teardown" {
		t.Errorf("phases %s, want setup,listTests,run,teardown", got)
	}
	if setup < 30*time.Millisecond {
		t.Errorf("setup took %v, the host slept 30ms in it", setup)
	}
	if len(hr.Cases) != 1 || hr.Cases[0].Status != protocol.StatusPass || !h.tornDown {
		t.Errorf("run %+v, torn down %v", hr.Cases, h.tornDown)
	}

	names = nil
	bad := &setupHost{setupErr: errors.New("no page")}
	if _, err := Run(context.Background(), bad, Options{OnPhase: func(p string, _ time.Duration) { names = append(names, p) }}); err == nil {
		t.Fatal("a failed setup must fail the run")
	}
	if got := strings.Join(names, ","); got != "setup,teardown" {
		t.Errorf("phases of a failed setup %s, want setup,teardown", got)
	}
}
