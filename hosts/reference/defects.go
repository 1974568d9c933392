package reference

// Defect makes the reference host violate exactly one requirement. The
// suite's self-test runs the suite once per defect to prove that the check
// for that requirement can fail.
type Defect struct {
	Name   string
	Breaks string // the requirement it breaks, with its spec reference
}

// Defects is every switchable defect.
var Defects = []Defect{
	{"hostinfo-missing", "ui/initialize result carries hostInfo (McpUiInitializeResult; sends a pre-spec 'host' key instead)"},
	{"host-capabilities-renamed", "ui/initialize result carries hostCapabilities (McpUiInitializeResult; sends them under a pre-spec 'capabilities' key instead, as assistant-ui did before PR #4280, assistant-ui #4276)"},
	{"initialize-unanswered", "ui/initialize is answered (McpUiInitializeResult; never answers it, as Claude Desktop did in claude-ai-mcp #165: the View waits, then runs without a session)"},
	{"protocol-version-wrong", "the requested, supported protocol version is echoed (answers \"0.1\")"},
	{"talks-before-initialized", "nothing is sent to the View before ui/notifications/initialized (S L485)"},
	{"tool-input-extra-args", "tool-input carries the complete, unchanged tool arguments (S L1106)"},
	{"tool-input-twice", "tool-input is sent at most once (S L1118)"},
	{"tool-result-before-input", "tool-input is sent before tool-result (S L1118)"},
	{"rerender-without-replay", "a View the host renders again gets its tool data again (docs/overview.md §Lifecycle: data delivery follows every initialization; re-renders the View 300 ms after initialized, as rerender-once, and sends the fresh View no tool-input or tool-result: ext-apps #522, a re-rendered View starved of data)"},
	{"tool-input-after-result", "tool-input is sent before tool-result (S L1118; withholds tool-input until the call's result is in, so a cancelled call's View never gets one)"},
	{"tool-input-missing", "tool-input is sent with the call's arguments (S L1106; sends neither tool-input-partial nor tool-input, as a host on pre-spec notification names did, assistant-ui #4276; the call's result is still sent)"},
	{"tool-result-missing", "tool-result is sent when the tool completes (S L1155)"},
	{"structured-content-stripped", "tool-result is the full CallToolResult, structuredContent and _meta included (S L1151)"},
	{"ping-unanswered", "ping from the View is answered (S L508)"},
	{"host-context-mistyped", "hostContext fields have their spec types (S L533-600; sends theme \"blue\")"},
	{"no-context-changed-on-theme", "a theme change reaches the View as host-context-changed (S L1229)"},
	{"app-tools-blocked", "app-visible tools are callable from the app (S L399)"},
	{"no-visibility-guard", "tools/call from the app for a tool without \"app\" visibility is rejected (S L401)"},
	{"visibility-guard-exact", "tools/call from the app for a tool without \"app\" visibility is rejected (S L401; rejects only a tool whose visibility is exactly [\"model\"], as a host guarding with the ext-apps SDK's isToolVisibilityModelOnly does, so a tool with visibility [] goes through: MCPJam inspector #2932)"},
	{"visibility-default-model-only", "a tool whose _meta.ui omits visibility is callable by the app (S L397: visibility defaults to [\"model\", \"app\"] if omitted; reads the omission as [\"model\"] and rejects the View's call, as KiroCrew #2823 inverted the default)"},
	{"app-only-tools-to-model", "tools without \"model\" visibility stay out of the agent's tool list (S L400)"},
	{"model-list-guard-exact", "tools without \"model\" visibility stay out of the agent's tool list (S L400; hides only a tool whose visibility is exactly [\"app\"], as a host filtering with the ext-apps SDK's isToolVisibilityAppOnly does, so a tool with visibility [] is offered to the model)"},
	{"message-dropped", "ui/message is added to the conversation (S L1033; answers {} and drops it)"},
	{"message-role-changed", "ui/message keeps its role in the conversation (S L1033: \"preserving the specified role\"; shows the View's user message as the assistant's)"},
	{"open-link-refused-but-opened", "ui/open-link opens the URL only when it does not refuse it (S §ui/open-link: an error \"if denied or failed\"; asks nothing, answers {isError: true} and opens the link anyway)"},
	{"link-not-opened", "ui/open-link opens the URL (S L996; confirms, answers {} and opens nothing)"},
	{"no-sandbox-proxy", "a web host wraps the View in a sandbox proxy (S L472; renders the View straight into the host page)"},
	{"sandbox-on-host-origin", "the host and the sandbox have different origins (S L474)"},
	{"unknown-method-silent", "an unknown request gets JSON-RPC error -32601 (S L1709; never answers)"},
	{"no-ui-extension", "initialize advertises extensions[\"io.modelcontextprotocol/ui\"].mimeTypes (S L1522)"},
	{"partial-after-input", "no tool-input-partial after tool-input (S L1136)"},
	{"container-dimensions-both", "containerDimensions has height xor maxHeight (S L560; sends both)"},
	{"display-mode-unavailable", "hostContext.displayMode is a valid mode listed in availableDisplayModes (S L735-789)"},
	{"display-mode-invalid-result", "ui/request-display-mode returns the resulting mode, a valid one (S L787)"},
	{"display-mode-unanswered", "ui/request-display-mode is answered with the resulting mode (S L787; never answers it, as the MCP Inspector did before PR #1656)"},
	{"display-switch-misreported", "ui/request-display-mode returns the resulting mode (S L787; switches, announces the new mode in host-context-changed, and answers the mode it left)"},
	{"undeclared-display-mode-granted", "the host never switches to a mode the app did not declare (S L786)"},
	{"undeclared-mode-with-gesture", "the host never switches to a display mode the app did not declare (S L786; refuses every request made without the user's activation, and on a gesture grants any mode it offers, pip included although the app declared only inline and fullscreen: ChatGPT, alpic's run)"},
	{"display-refusal-wrong-mode", "a refused display-mode request returns the current mode (S L788; refuses pip and answers another mode it did not switch to)"},
	{"pip-granted-unlisted", "the host never switches to a mode the app did not declare (S L786; lists no pip in availableDisplayModes, and grants pip when asked)"},
	{"no-context-changed-on-display-mode", "a granted display-mode switch is announced by host-context-changed (S L776)"},
	{"size-changed-ignored", "in flexible mode the host applies size-changed to the iframe (S L718)"},
	{"size-changed-width-ignored", "in flexible width the host applies size-changed's width to the iframe (S L718; states maxWidth, no fixed width, and applies the height only, as Goose did in goose #6366)"},
	{"viewport-not-container-dimensions", "with no fixed width stated, the host applies size-changed's width (S L718; sends hostContext.viewport instead of containerDimensions, so neither axis is fixed, and applies the height only, as Goose did before PR #7300, goose #6366)"},
	{"model-context-dropped", "ui/update-model-context reaches the model on the next turn (S L1097)"},
	{"model-context-accumulates", "only the last model-context update before the next user message reaches the model (S L1101)"},
	{"tool-error-as-rpc-error", "a tool's isError result is passed through as a result, not a JSON-RPC error (S L487)"},
	{"resources-not-proxied", "resources/read and resources/list from the View are proxied when serverResources is advertised (S L487)"},
	{"update-model-context-unimplemented", "an advertised capability's method is implemented (S L622-660; advertises updateModelContext, answers -32601)"},
	{"open-link-unvalidated", "ui/open-link refuses non-http(s) URLs promptly (S §ui/open-link; offers a javascript: URL for confirmation)"},
	{"malformed-breaks-session", "a malformed JSON-RPC frame is dropped and the session stays usable (S §Security)"},
	{"cross-server-calls-allowed", "an app cannot call another server's tools (S L399, L402)"},
	{"view-not-sandboxed", "the View is rendered in a sandboxed iframe (S L1698; neither the View's iframe nor the proxy's has a sandbox attribute)"},
	{"proxy-without-same-origin", "the sandbox proxy iframe has allow-scripts and allow-same-origin (S L475)"},
	{"csp-undeclared-connect-allowed", "connections to undeclared domains are blocked (S L286, L1756; adds connect-src *)"},
	{"csp-declaration-ignored", "the CSP is built from the declared domains (S L274; applies the restrictive default instead)"},
	{"resource-domains-ignored", "the CSP is built from the declared domains (S L274; declared resourceDomains are left out of script-src, style-src, img-src, font-src and media-src, as a fixed sandbox header does)"},
	{"frame-domains-ignored", "nested iframes from declared frameDomains are allowed (S L480; frame-src stays 'none' whatever frameDomains declares)"},
	{"frame-src-open", "frame-src is 'none' unless frameDomains are declared (S L480)"},
	{"object-src-missing", "object-src 'none' (S L481)"},
	{"base-uri-open", "base-uri is 'self' unless baseUriDomains are declared (S L482)"},
	{"sampling-invalid-result", "sampling/createMessage returns a valid CreateMessageResult (draft L534)"},
	{"no-tool-cancelled", "tool-cancelled is sent when the tool call is cancelled (S L1169; Stop cancels the call, the View hears nothing)"},
	{"resource-link-result-dropped", "tool-result is sent when the tool completes (S L1155; sends none when the result's content holds a resource_link block, as claude.ai did in claude-ai-mcp #753)"},
	{"slow-result-dropped", "tool-result is sent when the tool completes while the View is shown (S L1155; gives up on results that take over 1 s)"},
	{"no-teardown-on-close", "ui/resource-teardown is sent before a View is torn down (S L1201; removes it at once)"},
	{"teardown-not-awaited", "the host waits for the ui/resource-teardown response before tearing down (S L1202; removes the View once its first server call after the request is answered, before its answer)"},
	{"request-teardown-not-awaited", "after the View's request-teardown the host waits for the ui/resource-teardown response before tearing down (draft L1459 SHOULD; on this path alone it removes the View once its first server call after the request is answered, before its answer)"},
	{"request-teardown-skips-teardown", "an accepted request-teardown goes through ui/resource-teardown (draft L1459; removes the View at once)"},
	{"download-without-confirmation", "ui/download-file asks the user first (draft §ui/download-file; downloads without a dialog)"},
	{"download-filename-wrong", "the download is named after the last segment of resource.uri (draft §ui/download-file; names every file \"download\")"},
	{"download-filename-unsanitised", "download file names are sanitised against path traversal (draft §ui/download-file)"},
	{"download-acked-not-done", "ui/download-file downloads the file it answers {} for (draft §ui/download-file; confirms, answers {} and downloads nothing)"},
	{"download-traversal-refused-but-saved", "download file names are sanitised against path traversal (draft §ui/download-file; saves a traversing name as it is, then answers the request refused)"},
	{"download-unanswered", "ui/download-file is answered, with {} or a refusal (draft §ui/download-file; JSON-RPC: a request gets a response; asks the user, then never answers)"},
	{"download-ignored", "ui/download-file is answered, with {} or a refusal (draft §ui/download-file; JSON-RPC: a request gets a response; asks nothing, shows nothing and never answers: not a host waiting on its user)"},
	{"view-allow-downloads", "the View cannot download directly: allow-downloads is not set (draft §ui/download-file)"},
	{"log-message-error-reply", "notifications/message is accepted when logging is advertised (JSON-RPC: no reply to a notification; answers -32601)"},
	{"permissions-ignored", "requested _meta.ui.permissions are mapped to the iframes' allow attribute (S L484, MAY; ignores them)"},
	{"sandbox-csp-advertised-loose", "hostCapabilities.sandbox.csp approves only declared domains (S L286 No Loosening)"},
	{"nested-key-ignored", "a tool's UI is found at _meta.ui.resourceUri (S L391; reads only the deprecated flat _meta[\"ui/resourceUri\"] key, as CopilotKit did in CopilotKit #3108)"},
	{"legacy-key-ignored", "the deprecated flat _meta[\"ui/resourceUri\"] key is honoured (S L347; SDK: check both formats)"},
	{"ui-meta-listing-ignored", "_meta.ui on the resources/list entry is used when the content item has none (draft §Metadata Location)"},
	{"ui-meta-listing-wins", "_meta.ui on the content item takes precedence over the listing entry (draft §Metadata Location)"},
	{"annotated-tool-no-ui", "a tool's UI is fetched with resources/read of its resourceUri (S L391; renders no View for a tool that declares MCP annotations, as VS Code did in vscode #336916)"},
	{"ui-html-from-tool-result", "the UI is fetched with resources/read (S L391; renders a ui:// resource embedded in the tool result instead)"},
	{"default-object-src-missing", "without _meta.ui.csp plugins are blocked: object-src 'none' (S L481; draft L284, ext-apps PR #715; the default omits default-src 'none' and object-src 'none')"},
	{"default-csp-allowlist", "the applied CSP allows no domain the resource did not declare (S L286 No Loosening; without _meta.ui.csp the default admits https://cdn.jsdelivr.net in connect-src and img-src)"},
	{"default-csp-loose", "without _meta.ui.csp the restrictive default CSP applies (S L275-284; applies none)"},
	{"invalid-mode-error-but-switched", "a display-mode request with an invalid mode is refused and changes nothing (S L1709, L788; answers -32602 and switches anyway)"},
	{"invalid-params-accepted", "invalid params get JSON-RPC -32602 (ui/open-link without url, ui/request-display-mode with a bad mode)"},
	{"message-object-content-unanswered", "ui/message is always answered, whichever content form (S §ui/message; never answers the single-object form)"},
	{"no-proxy-ready", "the sandbox proxy sends ui/notifications/sandbox-proxy-ready to the host (S L476; the proxy never announces itself and the host sends the HTML when the proxy's frame has loaded)"},
	{"resource-before-proxy-ready", "the host sends sandbox-resource-ready once the sandbox is ready (S L477; the host sends the HTML when the proxy's frame has loaded, and the proxy announces itself only after forwarding the View's first message)"},
	{"app-tool-called-unlisted", "the host calls only tools of the View it has listed (draft L2641: \"Tools become available once the app advertises the tools capability in ui/initialize and the host issues tools/list\"; calls the View's tools/call with the name of the tool that opened it before any tools/list)"},
	{"list-changed-unthrottled", "the host throttles the View's tools/list_changed notifications (draft L2615: \"Throttle tools/list_changed notifications to prevent spam\"; lists the View's tools again on every notification)"},
	{"app-tools-unlimited", "a View's tools in the model's tool list are at most 50 (draft L2612: \"Limit maximum number of tools per app (recommended: 50)\"; offers all 60 the many-tools probe View provides)"},
	{"app-tools-outlive-view", "a View's tools leave the model's tool list when the View is torn down (draft L2642: \"Tools automatically disappear when app iframe is torn down\"; keeps a removed View's tools in the agent's list)"},
	{"app-tool-call-malformed", "the host calls a View's tool with a JSON-RPC request whose params are the tool's name and its arguments object (draft L510-535 \"Host → App: Call app-registered tool\", MCP tools/call; JSON-RPC 2.0 §4.2: \"by-name: params MUST be an Object\"; sends the arguments as a JSON string)"},
	{"app-tools-persisted", "app tool registrations are not persisted across sessions (draft L2643: \"Hosts MUST NOT persist app tool registrations across sessions\"; every View's registration, shown or closed, is restored into a new conversation's tool list)"},
	{"closed-app-tool-answered", "a call of a tool of a closed View returns an error (draft L2644: \"Calling a tool from a closed app MUST return an error\"; the agent's call of a removed View's tool gets an empty success)"},
	{"proxy-synthesises-ping", "the sandbox creates no requests of its own to the host or the View (S L486; the proxy pings the View and keeps the answer)"},
}

// DefectSet is a validated set of defect names.
type DefectSet map[string]bool

// ParseDefects validates names against Defects.
func ParseDefects(names []string) (DefectSet, error) {
	return parseNames("defect", "--list-defects", Defects, names)
}

// List returns the names in a stable order (nil for an empty set).
func (s DefectSet) List() []string {
	if len(s) == 0 {
		return nil
	}
	return sortedNames(s)
}
