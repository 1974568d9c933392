package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// uiExtension is how the host tells servers it renders MCP Apps (S L1522).
const (
	uiExtensionID = "io.modelcontextprotocol/ui"
	uiMIMEType    = "text/html;profile=mcp-app"
)

// conn is the host's MCP connection to one server.
type conn struct {
	id      string // "s0", "s1": stable ids the page uses
	url     string
	session *mcp.ClientSession

	mu    sync.Mutex
	tools []*mcp.Tool
}

// connect opens an MCP session to url as the client name, advertising
// the MCP Apps extension when advertiseUI.
func connect(ctx context.Context, id, url, name string, advertiseUI bool) (*conn, error) {
	caps := &mcp.ClientCapabilities{}
	if advertiseUI {
		caps.AddExtension(uiExtensionID, map[string]any{"mimeTypes": []string{uiMIMEType}})
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: Version}, &mcp.ClientOptions{Capabilities: caps})
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to MCP server %s: %w", url, err)
	}
	c := &conn{id: id, url: url, session: s}
	if err := c.refreshTools(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return c, nil
}

// probeSessions is the server-initialize-probes variation: two sessions
// that initialize and close before the real one, the first with empty
// capabilities (as hosts that probe a server before connecting do).
func probeSessions(ctx context.Context, url, version string) error {
	for i, caps := range []*mcp.ClientCapabilities{{}, nil} {
		if caps == nil {
			caps = &mcp.ClientCapabilities{}
			caps.AddExtension(uiExtensionID, map[string]any{"mimeTypes": []string{uiMIMEType}})
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpconform-reference-host", Version: version}, &mcp.ClientOptions{Capabilities: caps})
		s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return fmt.Errorf("probe session %d to MCP server %s: %w", i+1, url, err)
		}
		s.Close()
	}
	return nil
}

func (c *conn) refreshTools(ctx context.Context) error {
	var tools []*mcp.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list on %s: %w", c.url, err)
		}
		tools = append(tools, t)
	}
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
	return nil
}

func (c *conn) tool(name string) *mcp.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (c *conn) allTools() []*mcp.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tools)
}

// uiMeta is a tool's or resource's _meta.ui object.
func uiMeta(meta mcp.Meta) map[string]any {
	m, _ := meta["ui"].(map[string]any)
	return m
}

// visibility returns a tool's _meta.ui.visibility; absent means both
// (S L397). An explicit empty list means neither.
func visibility(t *mcp.Tool) []string {
	ui := uiMeta(t.Meta)
	raw, ok := ui["visibility"]
	if !ok {
		return []string{"model", "app"}
	}
	list, _ := raw.([]any)
	out := []string{}
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// resourceURI reads the tool's UI resource, nested key first, then the
// deprecated flat key (S L347; the SDK's getToolUiResourceUri does the same:
// "Host developers must check both formats").
func resourceURI(t *mcp.Tool, defects DefectSet) string {
	// The defect: a tool that declares MCP annotations gets no app
	// (vscode #336916).
	if defects["annotated-tool-no-ui"] && t.Annotations != nil {
		return ""
	}
	if s, ok := uiMeta(t.Meta)["resourceUri"].(string); ok && !defects["nested-key-ignored"] {
		return s
	}
	if defects["legacy-key-ignored"] {
		return ""
	}
	if s, ok := t.Meta["ui/resourceUri"].(string); ok {
		return s
	}
	return ""
}

// uiResource is a fetched UI resource with its merged _meta.ui.
type uiResource struct {
	URI      string         `json:"uri"`
	MIMEType string         `json:"mimeType"`
	HTML     string         `json:"html"`
	UI       map[string]any `json:"ui"`
	// Policy is the CSP the page puts into the View's own document as a
	// <meta>, where no sandbox proxy serves it (the no-sandbox-proxy
	// defect): a host without a proxy can still apply the declared CSP, so
	// the defect breaks only the proxy requirement (one root cause, one
	// red).
	Policy string `json:"policy,omitempty"`
}

// readUI fetches a UI resource with resources/read (S L391) and merges
// _meta.ui from the content item over the listing entry (draft L270).
func (c *conn) readUI(ctx context.Context, uri string, defects DefectSet) (*uiResource, error) {
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("resources/read %s: %w", uri, err)
	}
	if len(res.Contents) == 0 {
		return nil, fmt.Errorf("resources/read %s: no contents", uri)
	}
	item := res.Contents[0]
	if item.MIMEType != uiMIMEType {
		return nil, fmt.Errorf("resources/read %s: mimeType %q, want %q", uri, item.MIMEType, uiMIMEType)
	}
	html := item.Text
	if html == "" && len(item.Blob) > 0 {
		html = string(item.Blob)
	}
	var listing map[string]any
	if !defects["ui-meta-listing-ignored"] {
		for r, err := range c.session.Resources(ctx, nil) {
			if err != nil {
				break // listing is optional for UI resources (S L393)
			}
			if r.URI == uri {
				listing = uiMeta(r.Meta)
			}
		}
	}
	ui := map[string]any{}
	layers := []map[string]any{listing, uiMeta(item.Meta)}
	if defects["ui-meta-listing-wins"] {
		layers[0], layers[1] = layers[1], layers[0]
	}
	for _, layer := range layers {
		for k, v := range layer {
			ui[k] = v
		}
	}
	r := &uiResource{URI: uri, MIMEType: item.MIMEType, HTML: html, UI: ui}
	if defects["no-sandbox-proxy"] {
		r.Policy = buildCSP(declaredCSP(ui), defects)
	}
	return r, nil
}

// declaredCSP is _meta.ui.csp of a merged ui map, nil when none is declared.
func declaredCSP(ui map[string]any) *uiCSP {
	raw, ok := ui["csp"]
	if !ok || raw == nil {
		return nil
	}
	var c uiCSP
	if json.Unmarshal(toJSON(raw), &c) != nil {
		return nil
	}
	return &c
}

func toJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
