package reference_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// speedThrottle is how many times slower the throttled run's renderers
// are: the host page, the sandbox proxy and the View (each out-of-process
// frame has its own). A loaded CI machine is about this much slower than
// a quiet one.
const speedThrottle = 6

// No verdict depends on how fast the host reacts (docs/audit-timing.md):
// the whole catalogue runs on the reference host as it is, with its page
// and frames CPU-throttled, and with the slow-host variation (every
// message to the View 400 ms late), and every check must end with the
// same status in all three runs.
func TestVerdictsIndependentOfSpeed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	run := func(h hosts.Host, throttle float64) map[string]report.Case {
		t.Helper()
		e := env(t)
		e.CPUThrottle = throttle
		hr, err := runner.Run(ctx, h, runner.Options{Env: e, Stall: 3 * time.Minute})
		if err != nil {
			t.Fatalf("run (throttle %g): %v", throttle, err)
		}
		out := map[string]report.Case{}
		for _, c := range hr.Cases {
			out[c.ID] = c
		}
		return out
	}
	normal := run(reference.New(), 0)
	if len(normal) < 60 {
		t.Fatalf("the normal run has %d checks, want the whole catalogue", len(normal))
	}
	for id, c := range normal {
		if c.Status != protocol.StatusPass && c.Clause != protocol.ClauseInfo {
			t.Errorf("normal run: %s is %s (%s), want PASS: the comparison needs the known-good baseline", id, c.Status, c.Message)
		}
	}

	throttled := reference.New()
	slowed := run(throttled, speedThrottle)
	// The throttling reached the frames that run in processes of their
	// own, the sandbox proxy (another site) among them.
	if tr := throttled.Throttle; tr == nil || !hasPrefix(tr.Frames(), throttled.Server().SandboxURL) {
		t.Errorf("the throttling reached no sandbox proxy frame (%s): throttled frames %v", throttled.Server().SandboxURL, tr.Frames())
	} else if errs := tr.Errors(); len(errs) > 0 {
		t.Logf("frames that went away before they were throttled: %v", errs)
	}
	vs, err := reference.ParseVariations([]string{"slow-host"})
	if err != nil {
		t.Fatal(err)
	}
	late := run(reference.NewWith(nil, vs), 0)

	for name, r := range map[string]map[string]report.Case{"CPU-throttled": slowed, "slow-host": late} {
		if len(r) != len(normal) {
			t.Errorf("%s run has %d checks, the normal one %d", name, len(r), len(normal))
		}
		for id, c := range normal {
			if got, ok := r[id]; !ok {
				t.Errorf("%s run: %s did not run", name, id)
			} else if got.Status != c.Status {
				t.Errorf("%s run: %s is %s (%s), %s in the normal run: a verdict that depends on the host's speed", name, id, got.Status, got.Message, c.Status)
			}
		}
	}
}

func hasPrefix(urls []string, prefix string) bool {
	for _, u := range urls {
		if strings.HasPrefix(u, prefix) {
			return true
		}
	}
	return false
}
