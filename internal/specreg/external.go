package specreg

import "github.com/mcpconform/mcpconform/protocol"

// External are the rules of other specifications that a host judged by
// MCP Apps must follow because apps.mdx builds on them ("MCP-like
// handshake", "standard MCP messages", JSON-RPC 2.0 framing), and that
// some checks judge. They are quoted by hand from their source, so they
// are few and each names where it is written; they are not part of the
// derived register and not counted in its coverage.
var External = []Sentence{
	ext("jsonrpc-reply-to-request", "MUST", "JSON-RPC 2.0 §5 Response object",
		"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."),
	ext("jsonrpc-no-reply-to-notification", "MUST NOT", "JSON-RPC 2.0 §4.1 Notification",
		"The Server MUST NOT reply to a Notification, including those that are within a batch request."),
	ext("jsonrpc-method-not-found", "", "JSON-RPC 2.0 §5.1 Error object",
		"-32601 Method not found: The method does not exist / is not available."),
	ext("jsonrpc-request-id", "MUST", "JSON-RPC 2.0 §4 Request object",
		"An identifier established by the Client that MUST contain a String, Number, or NULL value if included. If it is not included it is assumed to be a notification."),
	ext("jsonrpc-params-by-name", "MUST", "JSON-RPC 2.0 §4.2 Parameter Structures",
		"by-name: params MUST be an Object, with member names that match the Server expected parameter names."),
	ext("mcp-initialize-respond-capabilities", "MUST", "MCP 2025-11-25 Lifecycle, Initialization",
		"The server MUST respond with its own capabilities and information"),
	ext("mcp-version-negotiation", "MUST", "MCP 2025-11-25 Lifecycle, Version Negotiation",
		"If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports."),
	ext("mcp-ping-respond", "MUST", "MCP 2025-11-25 Utilities, Ping",
		"The receiver MUST respond promptly with an empty response"),
	ext("mcp-standard-errors", "SHOULD", "MCP 2025-11-25 Server features, Error handling",
		"Servers SHOULD return standard JSON-RPC errors for common failure cases"),
}

func ext(id string, kw Keyword, source, quote string) Sentence {
	return Sentence{ID: id, Section: source, Keyword: kw, Clause: kw.Clause(), Subject: SubjectHost, Quote: quote,
		Attribution: "external rule: the host answers the View as the MCP/JSON-RPC peer"}
}

// FindExternal returns the external rule id names.
func FindExternal(id string) (Sentence, bool) {
	for _, s := range External {
		if s.ID == id {
			return s, true
		}
	}
	return Sentence{}, false
}

// Quotes lists every sentence id names: its register sentence in each
// edition, or its external rule.
func (r *Register) Quotes(id string) []string {
	var out []string
	for _, ed := range protocol.Editions {
		if s, ok := r.Find(id, ed); ok {
			out = append(out, s.Quote)
		}
	}
	if s, ok := FindExternal(id); ok {
		out = append(out, s.Quote)
	}
	return out
}
