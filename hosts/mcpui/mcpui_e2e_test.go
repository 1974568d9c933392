package mcpui

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The whole catalogue on the AppRenderer host: every check ends as
// reviewed, expectations/mcp-ui.yaml lists exactly the host bugs and the
// run passes its gate. (That Teardown leaves neither of the page's
// servers listening is hosts/npmpage TestServers'.)
func TestSuiteOnMCPUI(t *testing.T) {
	installed(t)
	hr := review.RunSuite(t, New(), hostreview.Suite{
		Expectations:  "expectations/mcp-ui.yaml",
		ThroughDriver: judgedThroughDriver,
		Offers:        []protocol.Kind{protocol.KindOpenTool, protocol.KindCloseView, protocol.KindCancelTool, protocol.KindToggleTheme},
		Lacks:         []protocol.Kind{protocol.KindConversationContains, protocol.KindReadModelToolList, protocol.KindConfirmDialog},
		Timeout:       10 * time.Minute, // a hang guard: 90 s in CI
	})
	if hr.HostName != "MCP-UI Host" {
		t.Errorf("hostInfo.name %q: not AppRenderer's default", hr.HostName)
	}
}

// Why security/view-sandboxed passes an inherited sandbox: here the View's
// own iframe has no sandbox attribute, the proxy's has, and the View's
// document is sandboxed all the same (inherited flags): Chromium ignores
// its alert() for want of allow-modals, with no dialog.
func TestViewSandboxedByInheritance(t *testing.T) {
	installed(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h := New()
	sb, err := runner.SetUp(ctx, h, runner.Options{Env: e2etest.Env(t, 60*time.Second)})
	if err != nil {
		h.Teardown(ctx)
		t.Fatal(err)
	}
	defer h.Teardown(ctx)
	fi, err := h.Frames(ctx)
	if err != nil {
		t.Fatalf("the frames' attributes: %v", err)
	}
	if _, ok := fi.Inner["sandbox"]; ok {
		t.Fatalf("the View's iframe has a sandbox attribute now (%+v): security/view-sandboxed's inheritance path is no longer exercised here", fi.Inner)
	}
	if fi.Outer["sandbox"] != "allow-scripts allow-same-origin allow-forms" {
		t.Fatalf("the proxy iframe's sandbox: %+v", fi.Outer)
	}
	var origin string
	if err := sb.(*bridge.Suite).Evaluator().EvalInto(ctx, `(alert("mcpconform-sandbox-probe"), window.origin)`, &origin); err != nil {
		t.Fatal(err)
	}
	if su, _ := url.Parse(h.Srv.SandboxURL); origin != "http://"+su.Host {
		t.Errorf("the View's origin %q, want the sandbox proxy's (about:blank written by the proxy)", origin)
	}
	c, err := h.ConsoleMatching(ctx, `Ignored call to 'alert\(\)'. The document is sandboxed`, 5*time.Second)
	if err != nil || !c.OK {
		t.Fatalf("the View's alert() was not ignored as a sandboxed document's: %v %+v", err, c)
	}
}
