package mcpuse

import (
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/protocol"
)

// The whole catalogue on the mcp-use Inspector: every check ends as
// reviewed, expectations/mcp-use.yaml lists exactly the host bugs and the
// run passes its gate; the Inspector listened on loopback only, and
// Teardown leaves no process of its group, nothing on its port and no
// HOME.
func TestSuiteOnMCPUse(t *testing.T) {
	installed(t)
	h := New()
	hr := review.RunSuite(t, h, hostreview.Suite{
		Expectations:  "expectations/mcp-use.yaml",
		ThroughDriver: judgedThroughDriver,
		Offers:        []protocol.Kind{protocol.KindOpenTool, protocol.KindCloseView, protocol.KindCancelTool, protocol.KindToggleTheme, protocol.KindConfirmDialog},
		Lacks:         []protocol.Kind{protocol.KindConversationContains, protocol.KindReadModelToolList},
		// A guard against a hang, not a speed limit: under CI's load the
		// run took 217 s and once outlasted the 4 minutes allowed before.
		Timeout: 10 * time.Minute,
	})
	if hr.HostName != "mcp-use-inspector" || hr.HostVersion != Version {
		t.Errorf("hostInfo %q %q, want mcp-use-inspector %s", hr.HostName, hr.HostVersion, Version)
	}

	if h.inst == nil {
		t.Fatal("the driver started no Inspector")
	}
	checkStopped(t, h.inst)
}
