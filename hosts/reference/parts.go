package reference

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Parts of the reference host for other hosts' test doubles
// (hosts/webchat/webchattest imitates hosted chat products with them), so
// that a double is not a second host written again: the backend's MCP
// connections, the forwarding of a View's requests to its own server with
// the visibility rules, and the sandbox proxy under the CSP built from
// _meta.ui.csp. They behave as the reference host without defects.

// Conn is a host backend's MCP session with one server.
type Conn struct{ c *conn }

// Connect opens an MCP session to the Streamable HTTP server at url as
// the client clientName, advertising the MCP Apps extension. id is the
// name the host page uses for the connection ("s0").
func Connect(ctx context.Context, id, url, clientName string) (*Conn, error) {
	c, err := connect(ctx, id, url, clientName, true)
	if err != nil {
		return nil, err
	}
	return &Conn{c}, nil
}

// ID is the connection's id.
func (c *Conn) ID() string { return c.c.id }

// Session is the MCP client session.
func (c *Conn) Session() *mcp.ClientSession { return c.c.session }

// Tool is the server's tool name, nil when it has none.
func (c *Conn) Tool(name string) *mcp.Tool { return c.c.tool(name) }

// Tools are the server's tools as listed at Connect.
func (c *Conn) Tools() []*mcp.Tool { return c.c.allTools() }

// UIResource is a UI resource as the host page renders it: {uri,
// mimeType, html, ui}, ui being _meta.ui of the content item over the
// resources/list entry's.
type UIResource = uiResource

// ReadUI reads the UI resource uri (resources/read) with its _meta.ui.
func (c *Conn) ReadUI(ctx context.Context, uri string) (*UIResource, error) {
	return c.c.readUI(ctx, uri, nil)
}

// Close ends the session.
func (c *Conn) Close() error { return c.c.session.Close() }

// Visibility is a tool's _meta.ui.visibility ("model", "app"); absent
// means both.
func Visibility(t *mcp.Tool) []string { return visibility(t) }

// ResourceURI is a tool's UI resource: _meta.ui.resourceUri, else the
// deprecated flat key; "" when it has none.
func ResourceURI(t *mcp.Tool) string { return resourceURI(t, nil) }

// AppHandler answers the host page's POSTs of a View's JSON-RPC request,
// {serverId, method, params}, with {result} or {error}: tools/call (only
// of the View's own server, only tools visible to apps), resources/read
// and resources/list.
func AppHandler(conns []*Conn) http.Handler {
	cs := make([]*conn, len(conns))
	for i, c := range conns {
		cs[i] = c.c
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveApp(w, r, cs, nil)
	})
}

// SandboxHandler serves the sandbox proxy page for a host page on the
// origin hostOrigin (only that origin may frame it and drive it). The
// proxy renders the View's HTML in a srcdoc iframe under the CSP built
// from the csp query parameter (the View's _meta.ui.csp as JSON) and
// passes JSON-RPC on both ways.
func SandboxHandler(hostOrigin string) http.Handler { return sandboxHandler(hostOrigin, nil, nil) }
