package reference

// Variation makes the reference host differ from its default behaviour in
// a way the spec allows: the mirror image of a Defect. The self-test's
// specificity pass runs the whole suite under each variation and demands
// that no check goes red, so a check that assumes more than the spec says
// is caught.
type Variation struct {
	Name   string
	Allows string // the spec sentence that allows it, with its reference
}

// Variations is every switchable legal variation. S is the 2026-01-26
// specification (specification/2026-01-26/apps.mdx), draft the draft one.
var Variations = []Variation{
	{"context-minimal", "hostContext holds only theme, and host-context-changed only theme: every HostContext field is optional (S L533-600, `theme?`, `styles?`, ...)"},
	{"context-empty", "hostContext is {} and never changes: \"the Host SHOULD include UI-specific context\" (S L533) and every HostContext field is optional (S L533-600)"},
	{"context-changed-full", "every host-context-changed carries the whole hostContext, the changed field included: its params are Partial<HostContext> (S L1229 \"contains partial updates\"), which the whole context satisfies"},
	{"theme-dark-initially", "the host starts in dark theme: theme is \"light\" | \"dark\" (S L533-600, `theme?`)"},
	{"locale-non-english", "the user's locale is ja-JP: locale is any BCP 47 tag (S L533-600, \"User's language/region preference\")"},
	{"container-fixed-height", "the inline container has a fixed height ({height, width}) and size-changed does not resize it: \"Fixed | height or width | Host controls the size\"; the size-changed MUST applies \"when using flexible dimensions\" (S §Container Dimensions, L669-733)"},
	{"container-fixed-width", "the inline container has a fixed width ({maxHeight, width}) and size-changed does not change it: \"Fixed | height or width | Host controls the size\"; the size-changed MUST applies \"when using flexible dimensions\" (S §Container Dimensions, L669-733), as Goose states {width} since PR #7300"},
	{"no-optional-capabilities", "hostCapabilities holds only serverTools and sandbox; message, updateModelContext, openLinks, downloadFile, logging, sampling and serverResources are absent and their methods answer -32601: every HostCapabilities member is optional (S L622-660)"},
	{"no-capability-message", "no hostCapabilities.message; ui/message answers -32601 (S L622-660, every member optional)"},
	{"no-capability-update-model-context", "no hostCapabilities.updateModelContext; ui/update-model-context answers -32601 (S L622-660)"},
	{"no-capability-open-links", "no hostCapabilities.openLinks (\"Host supports opening external URLs\", optional); ui/open-link answers -32601 (S L622-660)"},
	{"no-capability-download-file", "no hostCapabilities.downloadFile; ui/download-file answers -32601 (draft §Host Capabilities, optional)"},
	{"no-capability-logging", "no hostCapabilities.logging (\"Host accepts log messages\", optional); notifications/message is ignored (S L622-660)"},
	{"no-capability-sampling", "no hostCapabilities.sampling; sampling/createMessage answers -32601 (draft L534: \"Apps MUST check hostCapabilities.sampling first\")"},
	{"no-capability-server-resources", "no hostCapabilities.serverResources; resources/read and resources/list answer -32601 (S L622-660; S L487 \"The Host MAY forward\")"},
	{"no-agent", "ui/message (and the user's own messages) are added to the conversation but no model ever answers; the user calls tools from the tool picker (a development host such as an inspector): \"Host SHOULD add the message to the conversation context\" (S L1033) asks nothing of a model"},
	{"no-open-tool", "the user has no tool list to call a tool from (the driver offers no openTool), so the suite opens its probe Views through the agent: MCP tools are model-controlled, and \"implementations are free to expose tools through any interface pattern that suits their needs—the protocol itself does not mandate any specific user interaction model\" (MCP §Server/Tools, User Interaction Model); the Apps spec asks for no tool list either"},
	{"model-tool-list-unread", "the driver cannot read the model's tool list (it offers no readModelToolList, as on a hosted product whose page shows no list of the model's tools), so visibility/app-tool-hidden asks the agent for its tools and reads the answer in the conversation: the Apps spec fixes which tools are in the agent's list (S L400), not that anyone can read that list"},
	{"payload-undefined-keys", "tool-input arguments and the tool-result carry a key whose value is undefined, which postMessage's structured clone keeps and JSON drops: JSON-RPC over postMessage (S §Communication Protocol); the JSON payload is unchanged"},
	{"payload-extra-keys", "unknown extra keys in the ui/initialize result, hostContext and notification params: the schemas are passthrough and HostContext has an index signature (S L533-600; SDK McpUiInitializeResultSchema)"},
	{"payload-meta-on-notifications", "every host-to-View notification carries params._meta: MCP notification params may always hold _meta (MCP base protocol, Notification.params._meta)"},
	{"csp-meta", "the View's CSP is a <meta http-equiv> at the top of its srcdoc instead of the proxy's response header: \"The Sandbox MUST load the raw HTML of the View with CSP settings that ...\" (S L479) names no delivery"},
	{"csp-stricter", "the CSP adds form-action 'none', worker-src 'none', manifest-src 'none', drops the 'self' sources no View needs and refuses data: images (img-src 'none' without resourceDomains, as MCP Inspector 2.12.0 does): \"Host MAY further restrict but MUST NOT allow undeclared domains\" (S L286)"},
	{"view-same-origin", "the inner View iframe also gets allow-same-origin (as basic-host, Claude and ChatGPT do): the MUST of S L475 covers only the Sandbox's own permissions"},
	{"no-permissions-allow", "requested _meta.ui.permissions are not mapped to an allow= attribute: \"the Sandbox MAY set the inner iframe's allow attribute accordingly\" (S L484)"},
	{"no-context-changed-on-theme", "a theme change is not announced to the View: \"Host MAY send this notification when any context field changes\" (S L1229)"},
	{"display-modes-inline-only", "availableDisplayModes is [\"inline\"] and every other mode request returns the current mode: \"If the requested mode is not available, Host SHOULD return the current display mode\" (S L788)"},
	{"display-needs-gesture", "a display-mode request is refused unless the user has clicked into the View (the host page's focus is in its frame), answered with the current mode, as ChatGPT is reported to require a gesture for display-mode changes: \"If the requested mode is not available, Host SHOULD return the current display mode\" (S L788), and no sentence obliges a host to grant a mode"},
	{"display-modes-absent", "no availableDisplayModes in hostContext and the View stays inline: the field is optional (S L552, `availableDisplayModes?`)"},
	{"tool-input-partial-none", "no tool-input-partial before tool-input: \"Host MAY send this notification zero or more times\" (S L1120)"},
	{"tool-input-partial-once", "exactly one tool-input-partial ({}) before tool-input (S L1120)"},
	{"tool-input-partial-many", "six tool-input-partial snapshots, some repeated, before tool-input (S L1120)"},
	{"errors-32000", "requests the host refuses for bad params or policy are answered -32000 instead of -32602: the spec fixes no code for them (S §ui/open-link shows -32000 for a refusal)"},
	{"open-link-refused", "ui/open-link is refused with the result {isError:true} and no dialog: the SDK's result type is {isError?} (S §ui/open-link; \"Host SHOULD open the URL\", S L996)"},
	{"server-initialize-probes", "the host opens two probe sessions per server, the first initialize with empty capabilities, before the real session: MCP lets a client initialize any number of sessions"},
	{"request-teardown-ignored", "ui/notifications/request-teardown is logged and ignored: \"Host MAY defer or ignore\" (draft L1458)"},
	{"rerender-once", "300 ms after ui/notifications/initialized the host tears the View down gracefully (ui/resource-teardown, awaited) and renders it again from scratch; the fresh View sends ui/initialize and gets tool-input and tool-result again: the spec bounds messages per View instance (\"sent at most once\", S L1118) and does not forbid re-rendering"},
	{"message-consent", "ui/message waits for the user's consent in a dialog (the driver accepts it) before it is answered and added: \"Host MAY request user consent\" (S L1034)"},
	{"display-mode-unknown-current", "ui/request-display-mode with a missing or unknown mode is answered with the current mode instead of an error: \"If the requested mode is not available, Host SHOULD return the current display mode in the response\" (S L788)"},
	{"errors-internal-code", "requests refused for bad params are answered -32603, as an SDK host whose schema validation throws: the spec's ui/ errors are \"code: -32000, // Implementation-defined error\" (S §ui/open-link, §ui/message), no code is fixed"},
	{"resources-list-unproxied", "serverResources is advertised and resources/read is proxied, but resources/list answers -32601: the View's subset of MCP messages is tools/call, resources/read, notifications/message and ping (S §Standard MCP Messages), and serverResources means \"Host can proxy resource reads\" (S L622-660)"},
	{"context-open-fields", "availableDisplayModes lists a host-specific mode beyond inline/fullscreen/pip and deviceCapabilities carries a key beyond touch and hover: availableDisplayModes is string[] (S L552) and HostContext is passthrough (SDK McpUiHostContextSchema)"},
	{"content-images-only", "hostCapabilities.message and .updateModelContext are {image: {}}, and ui/message and ui/update-model-context refuse text with -32602: both are SupportedContentBlockModalities, \"the content types the host accepts\" (draft §Host Capabilities; McpUiSupportedContentBlockModalities), and nothing obliges a host to accept text"},
	{"view-after-result", "the host reads a tool's UI resource when the call starts but shows its View only once the call has ended (with its tool-input, then the result or tool-cancelled), as a host that renders a tool's UI with its result: tool-result is owed \"when tool execution completes (if the View is displayed during tool execution)\" (S L1155) and no sentence asks for the View while the tool runs; the host \"MAY prefetch and cache\" the resource it reads (S, beside L391)"},
	{"suite-call-cancelled", "the host cancels the suite's own tool call (tool-cancelled, reason \"classifier intervention\") and never sends its tool-result, although the server completed it: \"Host MUST send this notification if the tool execution was cancelled. This can occur due to user action, sampling error, classifier intervention, or other interruptions\" (S L1169); tool-result is owed only \"when tool execution completes\" for the View (S L1155)"},
	{"permissions-granted-unrequested", "every View is granted camera, microphone, geolocation and clipboard-write (advertised in hostCapabilities.sandbox.permissions and set in the iframes' allow attribute) whatever the resource requested, as ChatGPT advertises microphone: the spec forbids undeclared domains (\"MUST NOT allow undeclared domains\", S L286), and of permissions says only \"Hosts MAY honor these\" and \"the Sandbox MAY set the inner iframe's allow attribute accordingly\" (S L484)"},
	{"download-refused", "ui/download-file is refused after the confirmation dialog with the result {isError: true}: \"Host MAY reject the download\" (draft §ui/download-file), and the SDK's result type is {isError?}"},
	{"no-sandbox-capability", "hostCapabilities has no sandbox member although the sandbox and its CSP are applied: \"sandbox?: Sandbox configuration applied by the host\" is optional like every HostCapabilities member (S L622-660)"},
	{"view-sandbox-inherited", "the View's inner iframe has no sandbox attribute of its own and is sandboxed by the flags it inherits from the sandboxed proxy iframe (as mcp-ui's proxy does): the spec asks that \"All View content MUST be rendered in sandboxed iframes with restricted permissions\" (S L1698) and names the proxy's own permissions (S L475), not how the inner frame gets its sandbox; HTML sandboxing flags apply to every nested browsing context"},
	{"download-filename-underscored", "a download's name is sanitised by replacing each path separator with \"_\" and keeping the dots (\"../../x.txt\" is saved as \".._.._x.txt\"), which Chromium then saves as it saves an unsanitised traversal: \"Host SHOULD sanitize filenames to prevent path traversal\" (draft §ui/download-file) names no method, and a name without a separator cannot traverse"},
	{"tool-call-approval", "every tools/call from a View waits for the user's approval in a dialog (the driver approves each, as the user would) before the host forwards it: \"Host MAY forward any message\" from the View (S L487), and MCP asks that \"there SHOULD always be a human in the loop with the ability to deny tool invocations\" (MCP §Server/Tools, Security Considerations)"},
	{"download-toast-unconfirmed", "ui/download-file asks the user in a toast (\"Download 1 file?\", role status, as the mcp-use Inspector asks) that the driver is not told of, as a profile without CONFIRM for downloads: confirmDialog answers unsupported for download, the question stays unanswered and is declined after 30 s: \"Host SHOULD show a confirmation dialog before initiating the download\" (draft §ui/download-file) fixes no form, and the user may take any time"},
	{"download-asks-in-window", "ui/download-file asks the user in a window of the host's own (a popup titled \"Download 1 file?\" that the host page writes, as a host may ask beside its conversation) that the driver is not told of, as a profile without CONFIRM for downloads: confirmDialog answers unsupported for download, the question stays unanswered and is declined after 30 s: \"Host SHOULD show a confirmation dialog before initiating the download\" (draft §ui/download-file) fixes no form or place, and the user may take any time"},
	{"message-consent-unanswered", "ui/message waits for the user's consent in a question beside the conversation that the driver does not answer (a profile without APPROVE); declined after 30 s: \"Host MAY request user consent\" (S L1034), and the user may take any time"},
	{"tool-call-approval-unanswered", "every tools/call from a View waits for the user's approval in a question beside the conversation that the driver does not answer (a profile without APPROVE); declined after 30 s: \"Host MAY forward any message\" from the View (S L487), MCP's human in the loop \"with the ability to deny tool invocations\" (MCP §Server/Tools)"},
	{"slow-host", "every message the host sends a View (answers, notifications, its own requests) leaves 400 ms late, in order, as from a host on a loaded machine or behind a slow bridge: the spec sets no time limit on any answer or notification (S §Lifecycle), and MCP asks of a ping only that the receiver \"MUST respond promptly\" (MCP §Utilities/Ping)"},
	{"wire-v2", "the host speaks ext-apps v2's wire names: ui/list-view-tools and ui/call-view-tool to the View instead of tools/list and tools/call, and takes ui/log as well as notifications/message (ext-apps v2 BREAKING.md); the draft names the host → View tool requests (draft L510-535) by meaning, and a v2 host and a v1 View meet in the field"},
	{"app-tools-over-limit-refused", "a View that provides more tools than the host's limit of 50 gets none of them offered to the model, rather than the first 50: \"Limit maximum number of tools per app (recommended: 50)\" (draft L2612 SHOULD) leaves the means to the host"},
	{"app-tools-unsupported", "the host never lists or calls a View's tools although the View advertises the tools capability: \"the Host can send standard MCP tool requests to the App\" (draft §App-Provided Tools L2644) is a permission, not an obligation"},
	{"model-tool-names-namespaced", "the model's tool list (readModelToolList) names each tool with its server's prefix (s0__conformance_suite), as hosts connecting several servers do: the Apps spec fixes which tools are in the agent's list (S L400), not the names the model sees them under"},
}

// VariationSet is a validated set of variation names.
type VariationSet map[string]bool

// ParseVariations validates names against Variations.
func ParseVariations(names []string) (VariationSet, error) {
	return parseNames("variation", "--list-variations", Variations, names)
}

// List returns the names in a stable order.
func (s VariationSet) List() []string {
	return sortedNames(s)
}
