package hostreview

// Inspector is the review of every non-PASS on MCP Inspector 2.12.0
// (hosts/inspector/README.md). A check not named here must PASS.
var Inspector = Review{Host: "inspector", Reasons: []string{"host bug", "spec ambiguity", "optional"}, Fail: inspectorFail, Optional: inspectorOptional, Skip: inspectorSkip}

var (
	// Expected failures: each must also be an entry of expectations/inspector.yaml.
	inspectorFail = map[string]string{
		"visibility/model-only-tool-rejected": "received 1 call(s) of the model-only tool model_only_probe",
		// Judged through openTool and closeView: Close removes the View in
		// the same turn as it posts ui/resource-teardown to it.
		"lifecycle/teardown-sent": "no report of ui/resource-teardown reached the server",
	}
	// MAYs the Inspector does not take up: OPTIONAL, never failures, and no
	// entry of expectations/inspector.yaml.
	inspectorOptional = map[string]string{
		"security/permissions-honoured": "does not grant clipboardWrite (clipboard-write)",
	}
	// Honest skips: the Inspector lacks what the check needs.
	inspectorSkip = map[string]string{
		// Nor is there an app tool for its agent to call (tools/host-calls-app-tool).
		"tools/host-calls-app-tool": "does not support app-provided tools",
		// No agent to ask to call a closed app's tool.
		"tools/closed-app-tool-errors": "the host does not advertise hostCapabilities.message",
		// App-provided tools (draft): the host never lists the View's tools
		// (no tools/list or ui/list-view-tools within the paced wait), which
		// the draft leaves to it; nor can the model's tool list be read.
		"tools/app-tools-listed":            "does not support app-provided tools",
		"tools/list-changed-throttled":      "no re-listing to throttle",
		"tools/app-tools-gone-after-close":  "unsupported: readModelToolList",
		"tools/app-tools-limited":           "unsupported: readModelToolList",
		"tools/app-tools-not-persisted":     "unsupported: readNewSessionToolList",
		"sizing/size-changed-applied":       "fixed height 650: the host controls the size",
		"visibility/app-tool-hidden":        "the host does not advertise hostCapabilities.message",
		"visibility/cross-server-blocked":   "the host is not connected to the second fixture server",
		"messages/add-to-conversation":      "the host does not advertise hostCapabilities.message",
		"messages/role-preserved":           "the host does not advertise hostCapabilities.message",
		"model-context/next-turn":           "the host does not advertise hostCapabilities.updateModelContext",
		"model-context/last-wins":           "the host does not advertise hostCapabilities.updateModelContext",
		"sampling/create-message":           "the host does not advertise hostCapabilities.sampling",
		"sizing/size-changed-width-applied": "the host controls the width",
		// The probe View opens through openTool (the deep link in a new
		// tab), but the Apps tab has no Stop for a running tool call.
		"lifecycle/tool-cancelled": "unsupported: cancelTool",
		// Nothing to judge the wait by: teardown-sent fails.
		"lifecycle/teardown-awaited": "the View got no ui/resource-teardown at all",
		// The host ignores ui/notifications/request-teardown (it MAY), so
		// the MUST for an accepted request has nothing to judge.
		"lifecycle/request-teardown":         "ignored ui/notifications/request-teardown, which it MAY",
		"lifecycle/request-teardown-awaited": "the request was ignored, which the host MAY",
		// The Inspector offers no pip itself, so its refusal of pip cannot
		// show that it honours the app's declared modes.
		"display/undeclared-mode-refused": "the host offers no pip mode itself",
	}
)
