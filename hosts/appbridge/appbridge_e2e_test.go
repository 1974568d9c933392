package appbridge

import (
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/protocol"
)

// The whole catalogue on the AppBridge host: every check ends as reviewed,
// expectations/appbridge.yaml lists exactly the host bugs and the run
// passes its gate.
func TestSuiteOnAppBridge(t *testing.T) {
	npmcache.ForTestWith(t, Spec, Page.Options("", "", nil))
	hr := review.RunSuite(t, New(), hostreview.Suite{
		Expectations:  "expectations/appbridge.yaml",
		ThroughDriver: judgedThroughDriver,
		Offers:        []protocol.Kind{protocol.KindOpenTool, protocol.KindCloseView, protocol.KindToggleTheme},
		Lacks:         []protocol.Kind{protocol.KindCancelTool, protocol.KindConversationContains, protocol.KindReadModelToolList, protocol.KindConfirmDialog},
		Timeout:       10 * time.Minute, // a hang guard: 60 s in CI
	})
	if hr.HostName != "MCP Apps Host" {
		t.Errorf("hostInfo.name %q: not basic-host's", hr.HostName)
	}
}
