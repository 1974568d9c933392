package reference_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// speedThrottle is how many times slower the throttled run's renderers
// are: the host page, the sandbox proxy and the View (each out-of-process
// frame has its own). A loaded CI machine is about this much slower than
// a quiet one.
const speedThrottle = 6

// No verdict depends on how fast the host reacts (docs/audit-timing.md):
// the checks that wait for the host (the whole catalogue with
// MCPCONFORM_E2E_EXTENDED=1) on the reference host with its page and frames
// CPU-throttled end as they end at full speed, every check PASS
// (TestSuitePassesOnReferenceHost is that baseline). The other slowing, the
// slow-host variation (every message to the View 400 ms late), runs in the
// self-test's specificity pass, which holds it to the same rule
// (selftest.SpeedOnly); neither is run twice in CI.
func TestVerdictsIndependentOfSpeed(t *testing.T) {
	// Throttled renderers mostly wait: the run takes minutes and little
	// CPU, so it runs beside TestVariationsTakeEffect (also parallel), not
	// after it.
	t.Parallel()
	// A hang guard: 6 minutes in CI beside the other packages.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	throttled := reference.New()
	e := env(t)
	e.CPUThrottle = speedThrottle
	// CI throttles the areas whose checks wait for what the host does
	// after it answers (a barrier and a pace: docs/audit-timing.md), the
	// extended tests the whole catalogue: the CPU a throttled catalogue
	// costs is a full run's, and CI's 30 minutes are CPU-bound.
	sel, want := runner.Selection{Globs: speedAreas}, 30
	if e2etest.IsExtended() {
		sel, want = runner.Selection{}, 80
	}
	hr, err := runner.Run(ctx, throttled, runner.Options{Env: e, Stall: 3 * time.Minute, Selection: sel})
	if err != nil {
		t.Fatalf("run (throttled %gx): %v", float64(speedThrottle), err)
	}
	if len(hr.Cases) < want {
		t.Fatalf("the throttled run has %d checks, want every check of %v (no glob: the whole catalogue)", len(hr.Cases), sel.Globs)
	}
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusPass {
			t.Errorf("CPU-throttled %dx: %s is %s (%s), PASS at full speed: a verdict that depends on the host's speed", speedThrottle, c.ID, c.Status, c.Message)
		}
	}
	// The throttling reached the frames that run in processes of their
	// own, the sandbox proxy (another site) among them.
	tr := throttled.Throttle
	switch {
	case tr == nil:
		t.Errorf("Env.CPUThrottle %d: the host throttled nothing", speedThrottle)
	case !hasPrefix(tr.Frames(), throttled.Server().SandboxURL):
		t.Errorf("the throttling reached no sandbox proxy frame (%s): throttled frames %v", throttled.Server().SandboxURL, tr.Frames())
	case len(tr.Errors()) > 0:
		t.Logf("frames that went away before they were throttled: %v", tr.Errors())
	}
}

// speedAreas hold the checks that wait for the host after it answers or
// acts: the lifecycle's notifications and teardown, display and sizing
// changes, context announcements, and the dialogs of downloads, links and
// messages.
var speedAreas = []string{"lifecycle/*", "display/*", "sizing/*", "context/*", "downloads/*", "links/*", "messages/*"}

func hasPrefix(urls []string, prefix string) bool {
	for _, u := range urls {
		if strings.HasPrefix(u, prefix) {
			return true
		}
	}
	return false
}
