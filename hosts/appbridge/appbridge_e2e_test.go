package appbridge

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report/expectations"
	"github.com/mcpconform/mcpconform/runner"
)

// The whole catalogue on the AppBridge host: every check ends as reviewed,
// expectations/appbridge.yaml lists exactly the host bugs and the run
// passes its gate.
func TestSuiteOnAppBridge(t *testing.T) {
	npmcache.ForTestWith(t, Spec, Page.Options("", "", nil))
	const file = "expectations/appbridge.yaml"
	exp, err := expectations.Load(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	review.CheckExpectations(t, exp, file)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h := New()
	start := time.Now()
	hr, err := runner.Run(ctx, h, runner.Options{Env: e2etest.Env(t, 60*time.Second), Stall: 2 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("suite on ext-apps %s: %d checks in %s", Version, len(hr.Cases), time.Since(start).Round(time.Millisecond))
	if hr.HostName != "MCP Apps Host" {
		t.Errorf("hostInfo.name %q: not basic-host's", hr.HostName)
	}
	seen := review.CheckCases(t, hr.Cases)
	for _, id := range judgedThroughDriver {
		if !seen[id] {
			t.Errorf("%s, judged through the driver's capabilities, did not run", id)
		}
	}
	for _, k := range []protocol.Kind{protocol.KindOpenTool, protocol.KindCloseView, protocol.KindToggleTheme} {
		if !hosts.Supports(h, k) {
			t.Errorf("the appbridge driver does not offer %s", k)
		}
	}
	for _, k := range []protocol.Kind{protocol.KindCancelTool, protocol.KindConversationContains, protocol.KindReadModelToolList, protocol.KindConfirmDialog} {
		if hosts.Supports(h, k) {
			t.Errorf("the appbridge driver offers %s, which the page does not have", k)
		}
	}
	hostreview.Gate(t, hr, exp, file)
}
