package hostreview

// MCPUse is the review of every non-PASS on the mcp-use Inspector
// 20.3.10 (hosts/mcpuse/README.md). A check not named here must PASS.
var MCPUse = Review{Host: "mcp-use", Reasons: []string{"host bug"}, Fail: mcpuseFail, Optional: mcpuseOptional, Skip: mcpuseSkip}

var (
	// Host bugs: each must also be an entry of expectations/mcp-use.yaml.
	mcpuseFail = map[string]string{
		"lifecycle/tool-input-once": "expected exactly one tool-input, observed 2",
		"lifecycle/tool-cancelled":  "received no ui/notifications/tool-cancelled",
		"lifecycle/teardown-sent":   "no report of ui/resource-teardown reached the server",
		// States {maxHeight, maxWidth} and applies only the height.
		"sizing/size-changed-width-applied": "no fixed width; sent size-changed width",
	}
	// MAYs the Inspector does not take up.
	mcpuseOptional = map[string]string{
		"negotiation/legacy-resource-uri": "no probe View appeared",
		"errors/invalid-link-refused":     "did not refuse ui/open-link of a javascript: URL",
	}
	// Honest skips: the host lacks what the check needs.
	mcpuseSkip = map[string]string{
		// Nor is there an app tool for its agent to call (tools/host-calls-app-tool).
		"tools/host-calls-app-tool": "does not support app-provided tools",
		// No agent to ask to call a closed app's tool.
		"tools/closed-app-tool-errors": "the host does not advertise hostCapabilities.message",
		// App-provided tools (draft): the host never lists the View's tools
		// (no tools/list or ui/list-view-tools within the paced wait), which
		// the draft leaves to it; nor can the model's tool list be read.
		"tools/app-tools-listed":           "does not support app-provided tools",
		"tools/list-changed-throttled":     "no re-listing to throttle",
		"tools/app-tools-gone-after-close": "unsupported: readModelToolList",
		"tools/app-tools-limited":          "unsupported: readModelToolList",
		"tools/app-tools-not-persisted":    "unsupported: readNewSessionToolList",
		"lifecycle/teardown-awaited":       "got no ui/resource-teardown at all",
		"visibility/app-tool-hidden":       "unsupported: readModelToolList",
		"messages/add-to-conversation":     "hostCapabilities.message",
		"messages/role-preserved":          "hostCapabilities.message",
		"model-context/next-turn":          "hostCapabilities.updateModelContext",
		"model-context/last-wins":          "hostCapabilities.updateModelContext",
		"sampling/create-message":          "hostCapabilities.sampling",
		// The host ignores ui/notifications/request-teardown (it MAY), so
		// the MUST for an accepted request has nothing to judge.
		"lifecycle/request-teardown":         "ignored ui/notifications/request-teardown, which it MAY",
		"lifecycle/request-teardown-awaited": "the request was ignored, which the host MAY",
	}
)
