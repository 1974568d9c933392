// Package relaytest compares a run over the relay bridge with the verdicts
// the same host gives through the evaluate bridge: the e2e tests of the
// relay (reference host) and of the host drivers (MCP Inspector, against
// its review) share it.
package relaytest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// evaluations counts every Evaluator evaluation while it is installed,
// by frame URL (bridge.ObserveEvaluations).
type evaluations struct {
	mu      sync.Mutex
	byFrame map[string]int
	stop    func()
}

func countEvaluations() *evaluations {
	e := &evaluations{byFrame: map[string]int{}}
	e.stop = bridge.ObserveEvaluations(func(f playwright.Frame, _ string) {
		where := "(no frame)"
		if f != nil {
			where = f.URL()
			if f.ParentFrame() == nil {
				where = "main frame " + where
			}
		}
		e.mu.Lock()
		e.byFrame[where]++
		e.mu.Unlock()
	})
	return e
}

func (e *evaluations) total() (int, map[string]int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, k := range e.byFrame {
		n += k
	}
	return n, e.byFrame
}

// consoleLines logs the relay's and the errors' lines of the console
// evidence under dir.
func consoleLines(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.console.txt"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "relay") || strings.HasPrefix(l, "error") {
				t.Logf("%s: %.300s", filepath.Base(f), l)
			}
		}
	}
}

// Compare runs the suite on a fresh host through the relay with no
// evaluate at all (Setup included), and requires, for every check that
// needs no capability, the status want gives it: with want nil, the
// status of a run through the evaluate bridge on another fresh host (made
// first); the reference host's tests pass want instead of a second run,
// because its evaluate verdicts are known (hosts/reference asserts every
// check PASS, and the self-test's specificity pass asserts PASS under the
// rerender-once variation). With remount, the host renders the suite's
// View twice: the fresh View may say hello before the first one's bye
// reaches the server, and the refusals of that race (the suite retries)
// are allowed; any other refusal fails.
func Compare(t *testing.T, newHost func() hosts.Host, appTimeout, limit time.Duration, remount bool, want func(id string) protocol.Status) {
	sess := e2etest.Session(t)
	hub := sess.Fixtures.MainServer.Relay()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	run := func(bridgeName string) report.HostRun {
		t.Helper()
		env := sess.Env()
		env.AppTimeout = appTimeout
		env.Logf = t.Logf
		rl := sess.NewRelay()
		defer rl.Close()
		h := newHost()
		start := time.Now()
		dir := t.TempDir()
		// No retry on either side: a verdict that flips with the
		// machine's load is a defect of the check (docs/audit-timing.md).
		hr, err := runner.Run(ctx, h, runner.Options{Env: env, Relay: rl, Bridge: bridgeName, Stall: 2 * time.Minute, Logf: t.Logf, EvidenceDir: dir,
			OnCase: func(c report.Case) {
				if testing.Verbose() {
					t.Logf("%s %s: %s in %s %.120s", bridgeName, c.ID, c.Status, c.Duration.Round(time.Millisecond), c.Message)
				}
			}})
		if err != nil {
			consoleLines(t, dir)
			t.Fatalf("%s over %s: %v", h.Name(), bridgeName, err)
		}
		counts := map[protocol.Status]int{}
		for _, c := range hr.Cases {
			counts[c.Status]++
		}
		t.Logf("%s over %s: %d checks in %s: %v", h.Name(), bridgeName, len(hr.Cases), time.Since(start).Round(time.Millisecond), counts)
		return hr
	}

	var ev report.HostRun
	if want == nil {
		calls0 := hub.RelayCalls()
		ev = run(runner.BridgeEvaluate)
		if n := hub.RelayCalls() - calls0; n != 0 {
			t.Errorf("the evaluate run made %d relay calls: an unarmed run's View must never call the relay", n)
		}
	}

	calls0, refused0 := hub.RelayCalls(), hub.Refused()
	counter := countEvaluations()
	rl := run(runner.BridgeRelay)
	counter.stop()
	if n, by := counter.total(); n != 0 {
		t.Errorf("the relay run evaluated %d times (by frame: %v); it must not evaluate at all", n, by)
	}
	calls := hub.RelayCalls() - calls0
	// At least hello, the catalogue, the start and the last poll.
	if calls < 4 {
		t.Errorf("the relay run made only %d relay calls: did it use the relay?", calls)
	}
	if n := hub.Refused() - refused0; n != 0 {
		reasons := hub.RefusalReasons()
		reasons = reasons[max(0, len(reasons)-int(n)):]
		for _, why := range reasons {
			if remount && (strings.HasPrefix(why, "another View is bound") || strings.HasPrefix(why, "another View has bound") || strings.HasPrefix(why, "not the View bound")) {
				t.Logf("refused during the remount, as the race allows: %s", why)
				continue
			}
			t.Errorf("a relay call was refused during the relay run: %s", why)
		}
	}
	t.Logf("relay run: %d relay calls", calls)
	for _, c := range sess.Fixtures.MainServer.Observations().ToolCalls {
		if c.Tool == mcpserver.ToolRelay {
			t.Fatalf("the server's record holds a relay call: %+v", c)
		}
	}

	if want == nil {
		evaluated := map[string]protocol.Status{}
		for _, c := range ev.Cases {
			evaluated[c.ID] = c.Status
		}
		want = func(id string) protocol.Status { return evaluated[id] }
	}
	if ids, err := suite.IDs(); err != nil || len(ids) != len(rl.Cases) {
		t.Errorf("the relay run ran %d checks, the catalogue has %d (%v)", len(rl.Cases), len(ids), err)
	}
	compared, differ := 0, 0
	for _, c := range rl.Cases {
		if len(c.Needs) > 0 {
			continue
		}
		compared++
		if w := want(c.ID); c.Status != w {
			differ++
			t.Errorf("%s: relay %s (%s), through the evaluate bridge %s", c.ID, c.Status, c.Message, w)
		}
	}
	if compared < 20 {
		t.Errorf("only %d checks need no capability: is the catalogue right?", compared)
	}
	t.Logf("%d checks with no capability compared, %d differ", compared, differ)
	for _, c := range rl.Cases {
		for _, k := range runner.RelayDeclined {
			for _, n := range c.Needs {
				if n == k && c.Status == protocol.StatusError {
					t.Errorf("%s needs %s, declined under the relay, yet is ERROR: %s", c.ID, k, c.Message)
				}
			}
		}
	}
}
