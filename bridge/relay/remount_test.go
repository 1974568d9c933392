package relay_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge/relay"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// The host re-renders the suite's View at one exact moment of a relay run:
// the first View goes away (saying bye, as on ui/resource-teardown, or
// silently) and a fresh View of the same tool result says hello. The run
// must hand over to the fresh View, restarting the suite there on the
// checks not finished, the interrupted one included (runner.phase), never
// end in an infrastructure failure or hang. Each moment is placed by the fake View's
// hooks or the host's, so no timer decides it.

// remountStall bounds a run that stops moving: the runs here wait for
// nothing long, so only a run that lost its suite reaches it.
const remountStall = 15 * time.Second

const remountedMessage = "reloaded or remounted the app iframe"

// relayRun arms a relay run of the bench, with the suite's tool result
// and its token.
func (b *remountBench) relayRun() *relay.Relay {
	rl := relay.New(b.hub)
	b.t.Cleanup(rl.Close)
	rl.Arm()
	b.token = b.suiteToken()
	return rl
}

// drive waits for a View on rl and runs the suite through it with the
// real runner.
func (b *remountBench) drive(rl *relay.Relay, h hosts.Host) (report.HostRun, error) {
	ctx, cancel := context.WithTimeout(b.t.Context(), 2*remountStall)
	defer cancel()
	sb, err := rl.Await(ctx)
	if err != nil {
		return report.HostRun{}, err
	}
	return runner.Drive(ctx, sb, h, runner.Options{Stall: remountStall, Logf: b.t.Logf}, report.HostRun{Host: h.Name()})
}

// expectVerdicts requires a run without infrastructure failure whose
// checks have the statuses of want; an ERROR must be the remount's.
func (b *remountBench) expectVerdicts(hr report.HostRun, err error, want map[string]protocol.Status) {
	t := b.t
	t.Helper()
	if err != nil || hr.Infra != "" {
		t.Fatalf("a single remount ended the run in an infrastructure failure: %v (infra %q); expected the fresh View to take over, or the running check to end as ERROR and the rest to run", err, hr.Infra)
	}
	for _, c := range hr.Cases {
		if c.Status != want[c.ID] {
			t.Errorf("%s: expected %s, observed %s (%s)", c.ID, want[c.ID], c.Status, c.Message)
		}
		if c.Status == protocol.StatusError && !strings.Contains(c.Message, remountedMessage) {
			t.Errorf("%s: ERROR %q does not say the host %s", c.ID, c.Message, remountedMessage)
		}
	}
	if len(hr.Cases) != len(want) {
		t.Errorf("%d cases, expected %d", len(hr.Cases), len(want))
	}
	// A View that said bye is gone at once: nothing needs refusing. One
	// that went silently holds the run until its liveness lapses, and the
	// fresh View's hello is refused until then.
	for _, why := range b.hub.RefusalReasons() {
		if b.graceful || !strings.HasPrefix(why, refusedWhileBound) {
			t.Errorf("a relay call was refused: %s", why)
		}
	}
}

// allPass is every check of the fake suite passing.
func allPass() map[string]protocol.Status {
	m := map[string]protocol.Status{}
	for _, id := range fakeCatalogue {
		m[id] = protocol.StatusPass
	}
	return m
}

// remountOn makes v remount (as instance fresh) when it gets its first
// command of method, before it runs it; with started, v's suite starts
// first (it ran start, and its answer is lost with the document). The
// fresh View comes out of the returned channel.
func (b *remountBench) remountOn(v *fakeView, method, fresh string, started bool) <-chan *fakeView {
	out := make(chan *fakeView, 1)
	v.onCommand = func(v *fakeView, m string) {
		if m != method || len(out) > 0 {
			return
		}
		if started {
			v.eng.start(nil)
		}
		out <- b.remount(v, fresh)
	}
	return out
}

// (a) The View is re-rendered after it got its tool result, before its
// hello: the fresh View binds and runs the suite.
func TestRelayHandoverBeforeHello(t *testing.T) {
	eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
		rl := b.relayRun()
		type drove struct {
			hr  report.HostRun
			err error
		}
		done := make(chan drove, 1)
		go func() { hr, err := b.drive(rl, &resetHost{}); done <- drove{hr, err} }()
		b.view("i1").die(false) // no hello, so no bye either
		v2 := b.view("i2")
		b.bind(v2)
		go v2.serve()
		d := <-done
		b.expectVerdicts(d.hr, d.err, allPass())
	})
}

// (b) The View is re-rendered between its hello and the catalogue: it is
// given listTests and goes away without answering; the fresh View answers
// it and runs the suite.
func TestRelayHandoverBeforeCatalogue(t *testing.T) {
	eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
		rl := b.relayRun()
		v1 := b.view("i1")
		fresh := b.remountOn(v1, "listTests", "i2", false)
		b.bind(v1)
		go v1.serve()
		hr, err := b.drive(rl, &resetHost{})
		b.expectVerdicts(hr, err, allPass())
		if v2 := testwait.Recv(t, fresh, 10*time.Second, "the remount never happened"); !slices.Contains(v2.ranMethods(), "listTests") {
			t.Errorf("the fresh View ran %v, expected the catalogue (listTests) among them", v2.ranMethods())
		}
	})
}

// (c) The View is re-rendered between the catalogue and the start: it
// answered listTests, is given start and goes away, before running it or
// after (its answer lost); the fresh View starts and runs the suite.
func TestRelayHandoverBeforeStart(t *testing.T) {
	for _, started := range []bool{false, true} {
		name := "start-not-run"
		if started {
			name = "start-run-answer-lost"
		}
		t.Run(name, func(t *testing.T) {
			eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
				rl := b.relayRun()
				v1 := b.view("i1")
				fresh := b.remountOn(v1, "start", "i2", started)
				b.bind(v1)
				go v1.serve()
				hr, err := b.drive(rl, &resetHost{})
				b.expectVerdicts(hr, err, allPass())
				if got := v1.ranMethods(); !slices.Equal(got, []string{"listTests"}) {
					t.Errorf("the first View ran %v, expected only listTests", got)
				}
				testwait.Recv(t, fresh, 10*time.Second, "the remount never happened")
			})
		})
	}
}

// (c') The View is re-rendered after it answered start, before the
// runner's first poll: the fresh View was never started, and the runner
// must start it rather than wait on an idle suite.
func TestRelayHandoverAfterStart(t *testing.T) {
	eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
		rl := b.relayRun()
		v1 := b.view("i1")
		fresh := b.remountOn(v1, "poll", "i2", false)
		b.bind(v1)
		go v1.serve()
		hr, err := b.drive(rl, &resetHost{})
		b.expectVerdicts(hr, err, allPass())
		if v2 := testwait.Recv(t, fresh, 10*time.Second, "the remount never happened"); !slices.Contains(v2.ranMethods(), "start") {
			t.Errorf("the fresh View ran %v, expected a start", v2.ranMethods())
		}
	})
}

// (d) The View is re-rendered mid-check, while the host services its
// parked request: the answer reaches the fresh View, which the runner sees
// as a new instance; the check that was running runs again, with the rest,
// on the fresh View (runner.phase: once; a second interruption is ERROR).
func TestRelayHandoverWhileRequestParked(t *testing.T) {
	eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
		rl := b.relayRun()
		v1 := b.view("i1")
		fresh := make(chan *fakeView, 1)
		h := &resetHost{}
		h.onReset = func() {
			if len(fresh) == 0 {
				fresh <- b.remount(v1, "i2")
			}
		}
		b.bind(v1)
		go v1.serve()
		hr, err := b.drive(rl, h)
		// The interrupted check ran again in the fresh View.
		b.expectVerdicts(hr, err, allPass())
		testwait.Recv(t, fresh, 10*time.Second, "the remount never happened")
	})
}

// (d) The View is re-rendered mid-check while a command that polls is in
// flight in it: a plain poll while a check runs, or the answer to a parked
// request with the poll that follows it. The fresh View gets the command;
// the check the runner last saw running runs again there, with the rest.
func TestRelayHandoverWhilePollInFlight(t *testing.T) {
	t.Run("poll", func(t *testing.T) {
		eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
			rl := b.relayRun()
			v1 := b.view("i1")
			v1.eng.gate = make(chan struct{}) // checkWaits never ends in i1
			fresh := make(chan *fakeView, 1)
			v1.onCommand = func(v *fakeView, m string) {
				// A poll after one that showed checkWaits running: the
				// runner has seen it running.
				if m == "poll" && v.sawRunning(checkWaits) && len(fresh) == 0 {
					fresh <- b.remount(v, "i2")
				}
			}
			b.bind(v1)
			go v1.serve()
			hr, err := b.drive(rl, &resetHost{})
			b.expectVerdicts(hr, err, allPass())
			testwait.Recv(t, fresh, 10*time.Second, "the remount never happened")
		})
	})
	t.Run("resolveAndPoll", func(t *testing.T) {
		eachWayOfGoing(t, func(t *testing.T, b *remountBench) {
			rl := b.relayRun()
			v1 := b.view("i1")
			fresh := b.remountOn(v1, "resolveAndPoll", "i2", false)
			b.bind(v1)
			go v1.serve()
			hr, err := b.drive(rl, &resetHost{})
			b.expectVerdicts(hr, err, allPass())
			testwait.Recv(t, fresh, 10*time.Second, "the remount never happened")
		})
	})
}

func (v *fakeView) ranMethods() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.ran...)
}
