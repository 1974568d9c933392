package mcpui

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
)

// One browser and one pair of fixture servers for the whole package
// (e2etest); the driver under test installs and bundles mcp-ui itself.
func TestMain(m *testing.M) { e2etest.Main(m) }

// What the review of every non-PASS on AppRenderer 7.1.1 found (see
// README.md). A check not named here must PASS.
var (
	review = hostreview.Review{Host: "mcp-ui", Reasons: []string{"host bug"}, Fail: wantFail, Optional: wantOptional, Skip: wantSkip}
	// Host bugs: each must also be an entry of expectations/mcp-ui.yaml.
	wantFail = map[string]string{
		"visibility/model-only-tool-rejected": "received 1 call(s) of the model-only tool model_only_probe",
		"csp/undeclared-connect-blocked":      "raised no connect-src violation",
		"csp/frame-src-default":               "raised no frame-src violation",
		"csp/object-src-none":                 "raised no object-src violation",
		"csp/base-uri-default":                "raised no base-uri violation",
		"csp/default-restrictive":             "raised no connect-src violation",
		"csp/default-object-src":              "expected an <object> to raise an object-src violation",
	}
	// False verdicts of the suite on this host, FAILs that are not host
	// bugs, would be listed here; there are none. The first run found two,
	// both fixed in the suite: security/view-sandboxed asserted a sandbox
	// attribute on the View's own iframe (mcp-ui's proxy leaves it bare, and
	// the View inherits the proxy iframe's flags), and errors/invalid-params
	// wanted -32602 where the spec fixes no code.
	// MAYs AppRenderer does not take up.
	wantOptional = map[string]string{
		"security/permissions-honoured": "does not grant clipboardWrite",
		"errors/invalid-link-refused":   "did not refuse ui/open-link of a javascript: URL",
	}
	// Honest skips: the host lacks what the check needs.
	wantSkip = map[string]string{
		// App-provided tools (draft): the host never lists the View's tools
		// (no tools/list or ui/list-view-tools within the paced wait), which
		// the draft leaves to it; nor can the model's tool list be read.
		"tools/app-tools-listed":           "does not support app-provided tools",
		"tools/list-changed-throttled":     "no re-listing to throttle",
		"tools/app-tools-gone-after-close": "unsupported: readModelToolList",
		"tools/app-tools-limited":          "unsupported: readModelToolList",
		"tools/app-tools-not-persisted":    "unsupported: readNewSessionToolList",
		// Nor is there an app tool for its agent to call (tools/host-calls-app-tool).
		"tools/host-calls-app-tool": "does not support app-provided tools",
		// No agent to ask to call a closed app's tool.
		"tools/closed-app-tool-errors":   "the host does not advertise hostCapabilities.message",
		"context/container-dimensions":   "sends no containerDimensions",
		"context/display-mode-available": "sends no displayMode",
		"display/switch-announced":       "declined fullscreen",
		"visibility/app-tool-hidden":     "unsupported: readModelToolList",
		// The host ignores ui/notifications/request-teardown (it MAY), so
		// the MUST for an accepted request has nothing to judge.
		"lifecycle/request-teardown":         "ignored ui/notifications/request-teardown, which it MAY",
		"lifecycle/request-teardown-awaited": "the request was ignored, which the host MAY",
		"visibility/cross-server-blocked":    "not connected to the second fixture server",
		"capabilities/logging-accepted":      "hostCapabilities.logging",
		"messages/add-to-conversation":       "hostCapabilities.message",
		"messages/role-preserved":            "hostCapabilities.message",
		"model-context/next-turn":            "hostCapabilities.updateModelContext",
		"model-context/last-wins":            "hostCapabilities.updateModelContext",
		"sampling/create-message":            "hostCapabilities.sampling",
		"downloads/download-file":            "hostCapabilities.downloadFile",
		"downloads/filename-sanitised":       "hostCapabilities.downloadFile",
		// No CSP at all: an allowed origin shows nothing about where the
		// host read _meta.ui from, nor a CSP built from the declaration.
		"negotiation/ui-meta-content-precedence": "allows it even where nothing declares it",
		"negotiation/ui-meta-listing-fallback":   "but so was the fetch to",
		"csp/declared-connect-allowed":           "but so was the fetch to",
		"csp/declared-resource-allowed":          "but so did an image from",
		"csp/declared-frame-allowed":             "but so was one from",
		"csp/policy-declared-only":               "neither View raised a CSP violation",
		// No hostCapabilities.sandbox: no approved domains to compare.
		"security/no-loosening": "the host states no approved domains",
	}
	// Judged only through the driver's openTool, closeView and cancelTool.
	judgedThroughDriver = []string{
		"negotiation/ui-resource-read", "lifecycle/result-after-delay", "lifecycle/tool-cancelled",
		"lifecycle/teardown-sent", "lifecycle/teardown-awaited", "lifecycle/request-teardown",
		"context/theme-change-notifies",
	}
)

// installed returns the npm prefix with mcp-ui and its pinned companions,
// installing them on first use; no npm or no registry skips (fails with
// CI=true or MCPCONFORM_REQUIRE_BROWSER=1).
func installed(t *testing.T) string {
	t.Helper()
	return npmcache.ForTestWith(t, Spec, npmcache.Options{Also: Also})
}
