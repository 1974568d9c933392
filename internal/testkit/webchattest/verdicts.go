package webchattest

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// DriverChecks are the checks that go through a chat driver's hooks and
// capabilities; against a faithful imitation each must pass:
//   - initialize-result: the app was found and bound (setup hooks);
//   - add-to-conversation, role-preserved, app-tool-hidden: trigger
//     click, committing a drafted ui/message, reading conversation turns
//     and whose they are;
//   - open-link: trigger click, the open-link dialog (or none), new tab;
//   - theme-change-notifies: the theme hook;
//   - switch-announced: a trigger click after the conversation scrolled;
//   - the security checks: frame inspection from the host page;
//   - invalid-link-refused: isolation reset between checks.
var DriverChecks = []string{
	"lifecycle/initialize-result",
	"messages/add-to-conversation",
	"messages/role-preserved",
	"visibility/app-tool-hidden",
	"links/open-link",
	"context/theme-change-notifies",
	"display/switch-announced",
	"security/sandbox-proxy",
	"security/host-origin-distinct",
	"security/view-sandboxed",
	"security/proxy-permissions",
	"errors/invalid-link-refused",
}

// CheckRun asserts what a driver is answerable for in a whole-suite run
// against its imitation: every DriverCheck passes; no check is an ERROR (a
// harness fault: a hook or capability that threw); no check skips for a
// capability the driver has; and every check got a verdict. Other FAILs,
// TIMEOUTs and SKIPs are the imitation's fidelity to the spec (it offers
// no model context or sampling, for one), logged but not judged here, so
// that checks added to the suite do not break the drivers' tests.
func CheckRun(t *testing.T, h hosts.Host, hr report.HostRun) {
	t.Helper()
	byID := map[string]report.Case{}
	for _, c := range hr.Cases {
		byID[c.ID] = c
		if c.Status != protocol.StatusPass {
			t.Logf("%-44s %s %s", c.ID, c.Status, c.Message)
		}
	}
	if len(hr.Cases) < len(DriverChecks) {
		t.Fatalf("only %d checks ran", len(hr.Cases))
	}
	for _, id := range DriverChecks {
		c, ok := byID[id]
		if !ok {
			t.Errorf("%s did not run", id)
			continue
		}
		if c.Status != protocol.StatusPass {
			t.Errorf("%s: want PASS through the driver, got %s %s", id, c.Status, c.Message)
		}
	}
	for _, c := range hr.Cases {
		switch c.Status {
		case protocol.StatusError, protocol.StatusNotRun:
			t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
		case protocol.StatusSkip:
			for _, k := range protocol.Kinds {
				u := "unsupported: " + string(k)
				if hosts.Supports(h, k) && (c.Message == u || strings.HasPrefix(c.Message, u+" ")) {
					t.Errorf("%s skipped as %q although the driver has %s", c.ID, c.Message, k)
				}
			}
		}
	}
}
