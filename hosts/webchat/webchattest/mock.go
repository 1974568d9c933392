// Package webchattest serves local imitations of hosted chat products for
// the tests of their drivers. An imitation is two loopback origins: the
// product page on 127.0.0.1 (a page from the product package's testdata
// that reproduces the structure the product is documented to have, plus a
// small real MCP Apps host, web/host.ts) and the app sandbox on localhost
// (a different site, as the products' sandbox domains are). A Go backend
// connects to MCP servers like the product's backend does, runs a scripted
// "model", and forwards the View's requests with the visibility rules.
//
// It renders the real conformance suite, so runner.Run drives the suite
// through the product's driver and a broken selector or hook shows up as a
// setup error or a wrong status.
package webchattest

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/tsbundle"
)

//go:embed web/*.ts
var web embed.FS

const (
	uiExtensionID = "io.modelcontextprotocol/ui"
	uiMIMEType    = "text/html;profile=mcp-app"
	suiteTool     = "conformance_suite"
)

// Options describe one imitation.
type Options struct {
	// PageFile is the product page (HTML). It loads /mock/config.js and
	// then /mock/host.js, and defines window.__mockProduct, the glue the
	// host script calls (see web/host.ts).
	PageFile string
	// SandboxPath is the path of the sandbox proxy page on the sandbox
	// origin. It carries the product's sandbox domain (e.g.
	// "/web-sandbox.oaiusercontent.com/sandbox.html"), so the driver's
	// built-in app-frame selector (iframe[src*="oaiusercontent.com"])
	// matches without an override.
	SandboxPath string
	// LoginPath is where a visitor without the session cookie is sent;
	// it shows a log-in button that sets the cookie.
	LoginPath string
	// AppName is the connector's name in the product.
	AppName string
	// RequireMention: the model uses the connector only once the user
	// picked it in the mention picker (ChatGPT).
	RequireMention bool
	// MCPServers are the Streamable HTTP servers the product connects to.
	MCPServers []string
	// Glue is extra configuration for the page's glue (window.__mockConfig.glue).
	Glue map[string]any
}

// SessionCookie is the cookie the imitation's pages require.
const SessionCookie = "mock_session"

// Product is a running imitation.
type Product struct {
	// URL is the product page; Origin its origin; SandboxOrigin the
	// sandbox's (localhost, another site).
	URL, Origin, SandboxOrigin string
	// Session is the value of the session cookie a logged-in visitor has.
	Session string

	o               Options
	host, sandbox   *httptest.Server
	conns           []*conn
	mu              sync.Mutex
	pending         map[string]pendingCall
	mentioned       bool
	userMessages    []string
	hostJS, proxyJS string
}

type pendingCall struct {
	conn *conn
	tool *mcp.Tool
	args map[string]any
}

// Start connects to the MCP servers and starts both origins. Close it.
func Start(ctx context.Context, o Options) (*Product, error) {
	if _, err := os.Stat(o.PageFile); err != nil {
		return nil, err
	}
	p := &Product{o: o, pending: map[string]pendingCall{}, Session: randomHex(16)}
	var err error
	if p.hostJS, err = bundle("web/host.ts"); err != nil {
		return nil, err
	}
	if p.proxyJS, err = bundle("web/sandbox.ts"); err != nil {
		return nil, err
	}
	for i, u := range o.MCPServers {
		c, err := connect(ctx, fmt.Sprintf("s%d", i), u)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.conns = append(p.conns, c)
	}
	p.host = httptest.NewServer(p.hostMux())
	p.sandbox = httptest.NewServer(p.sandboxMux())
	p.Origin = p.host.URL
	p.URL = p.host.URL + "/"
	// The sandbox is addressed as "localhost": another site than the
	// page's 127.0.0.1, as a product's sandbox domain is.
	p.SandboxOrigin = fmt.Sprintf("http://localhost:%d", p.sandbox.Listener.Addr().(*net.TCPAddr).Port)
	return p, nil
}

// Close stops both origins and the MCP sessions.
func (p *Product) Close() {
	if p.host != nil {
		p.host.CloseClientConnections()
		p.host.Close()
	}
	if p.sandbox != nil {
		p.sandbox.CloseClientConnections()
		p.sandbox.Close()
	}
	for _, c := range p.conns {
		c.session.Close()
	}
}

// UserMessages are the user messages the "model" received, in order.
func (p *Product) UserMessages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.userMessages)
}

// WriteStorageState writes a Playwright storage state holding a logged-in
// session for the imitation to path, with mode.
func (p *Product) WriteStorageState(path string, mode os.FileMode) error {
	st := &playwright.StorageState{Cookies: []playwright.Cookie{{
		Name: SessionCookie, Value: p.Session, Domain: "127.0.0.1", Path: "/", Expires: -1,
	}}, Origins: []playwright.Origin{{Origin: p.Origin, LocalStorage: []playwright.NameValue{{Name: "mock-token", Value: "local-" + p.Session}}}}}
	if err := webchat.SaveStorageState(path, st); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

func (p *Product) loggedIn(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	return err == nil && c.Value == p.Session
}

func (p *Product) hostMux() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if !p.loggedIn(r) {
			http.Redirect(w, r, p.o.LoginPath, http.StatusFound)
			return
		}
		b, err := os.ReadFile(p.o.PageFile)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
	m.HandleFunc("GET "+p.o.LoginPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Log in</title></head><body><h1>Welcome</h1>
<form method="post" action="/mock/login"><button data-testid="login-button" type="submit">Log in</button></form></body></html>`)
	})
	m.HandleFunc("POST /mock/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: p.Session, Path: "/", HttpOnly: true, MaxAge: 3600})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	m.HandleFunc("GET /mock/config.js", func(w http.ResponseWriter, r *http.Request) {
		cfg, _ := json.Marshal(map[string]any{
			"sandboxURL": p.SandboxOrigin + p.o.SandboxPath,
			"appName":    p.o.AppName,
			"glue":       p.o.Glue,
		})
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, "window.__mockConfig = %s;\n", cfg)
	})
	m.HandleFunc("GET /mock/host.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte(p.hostJS))
	})
	m.HandleFunc("POST /api/chat", p.handleChat)
	m.HandleFunc("POST /api/call", p.handleCall)
	m.HandleFunc("POST /api/app", p.handleApp)
	return p.requireSession(m)
}

// requireSession guards the APIs with the session cookie, like the product.
func (p *Product) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") && !p.loggedIn(r) {
			http.Error(w, "not logged in", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (p *Product) sandboxMux() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET "+p.o.SandboxPath, func(w http.ResponseWriter, r *http.Request) {
		var csp *uiCSP
		if q := r.URL.Query().Get("csp"); q != "" {
			csp = &uiCSP{}
			if err := json.Unmarshal([]byte(q), csp); err != nil {
				http.Error(w, "bad csp", http.StatusBadRequest)
				return
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", buildCSP(csp)+"; frame-ancestors "+p.Origin)
		cfg, _ := json.Marshal(map[string]string{"hostOrigin": p.Origin})
		fmt.Fprintf(w, "<!doctype html><html><head><meta charset=\"utf-8\"><title>sandbox</title></head><body style=\"margin:0\"><script>window.__sandboxConfig = %s;</script><script>%s</script></body></html>",
			strings.ReplaceAll(string(cfg), "<", `\u003c`), p.proxyJS)
	})
	return m
}

// ------------------------------------------------------------------ model

var (
	listToolsRe = regexp.MustCompile(`(?i)\blist\b.*\btools?\b`)
	// The suite's agent control question (fixtures/suite/tests/helpers.ts).
	reverseRe = regexp.MustCompile(`(?i)\breply with this word reversed\b[^:]*:\s*([A-Za-z0-9_-]+)`)
	argsRe    = regexp.MustCompile(`(?s)\barguments\s+(\{.*\})`)
)

type chatRequest struct {
	Text     string   `json:"text"`
	Mentions []string `json:"mentions"`
}

// handleChat is the scripted model: asked for a tool it may call (by name,
// with "arguments {json}" optionally) it proposes the call, which the page
// asks the user to approve; asked for its tools it lists those the model
// may see; otherwise it acknowledges.
func (p *Product) handleChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.userMessages = append(p.userMessages, req.Text)
	if slices.Contains(req.Mentions, p.o.AppName) {
		p.mentioned = true
	}
	enabled := p.mentioned || !p.o.RequireMention
	p.mu.Unlock()
	if m := reverseRe.FindStringSubmatch(req.Text); m != nil {
		// The suite's agent control question: a model answers it.
		r := []rune(m[1])
		slices.Reverse(r)
		writeJSON(w, map[string]any{"reply": "Reversed: " + string(r)})
		return
	}
	if name := p.toolNamed(req.Text); name != "" {
		if !enabled {
			writeJSON(w, map[string]any{"reply": "I don't have a tool called " + name + ". Pick an app with @ first."})
			return
		}
		args := map[string]any{}
		if m := argsRe.FindStringSubmatch(req.Text); m != nil {
			if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
				args = map[string]any{}
			}
		}
		if name == suiteTool {
			args["nonce"] = randomHex(8)
		}
		for _, c := range p.conns {
			t := c.tool(name)
			if t == nil || !slices.Contains(visibility(t), "model") {
				continue
			}
			id := randomHex(8)
			p.mu.Lock()
			p.pending[id] = pendingCall{conn: c, tool: t, args: args}
			p.mu.Unlock()
			writeJSON(w, map[string]any{"reply": "I'll call " + name + ".", "call": map[string]string{"id": id, "tool": name, "app": p.o.AppName}})
			return
		}
	}
	if listToolsRe.MatchString(req.Text) {
		writeJSON(w, map[string]any{"reply": "I can call these tools: " + strings.Join(p.modelTools(), ", ") + "."})
		return
	}
	writeJSON(w, map[string]any{"reply": "Noted."})
}

// toolNamed is the longest name of a tool the model may call that the
// text mentions.
func (p *Product) toolNamed(text string) string {
	best := ""
	for _, n := range p.modelTools() {
		if strings.Contains(text, n) && len(n) > len(best) {
			best = n
		}
	}
	return best
}

func (p *Product) modelTools() []string {
	var names []string
	for _, c := range p.conns {
		for _, t := range c.allTools() {
			if slices.Contains(visibility(t), "model") {
				names = append(names, t.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// handleCall runs an approved tool call and returns what the page needs to
// render the app.
func (p *Product) handleCall(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	pc, ok := p.pending[req.ID]
	delete(p.pending, req.ID)
	p.mu.Unlock()
	if !ok {
		http.Error(w, "no such pending call", http.StatusNotFound)
		return
	}
	res, err := pc.conn.session.CallTool(r.Context(), &mcp.CallToolParams{Name: pc.tool.Name, Arguments: pc.args})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	launch := map[string]any{"serverId": pc.conn.id, "tool": pc.tool, "callId": randomHex(8), "arguments": pc.args, "result": res}
	if uri := resourceURI(pc.tool); uri != "" {
		ui, err := pc.conn.readUI(r.Context(), uri)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		launch["resource"] = ui
	}
	writeJSON(w, launch)
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// handleApp forwards a View's request to its own server only, with the
// visibility rules.
func (p *Product) handleApp(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ServerID string          `json:"serverId"`
		Method   string          `json:"method"`
		Params   json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var c *conn
	for _, x := range p.conns {
		if x.id == req.ServerID {
			c = x
		}
	}
	reply := func(res any, e *rpcError) {
		if e != nil {
			writeJSON(w, map[string]any{"error": e})
			return
		}
		writeJSON(w, map[string]any{"result": res})
	}
	if c == nil {
		reply(nil, &rpcError{-32603, "unknown server " + req.ServerID})
		return
	}
	ctx := r.Context()
	switch req.Method {
	case "tools/call":
		var cp struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &cp); err != nil || cp.Name == "" {
			reply(nil, &rpcError{-32602, "tools/call needs {name, arguments}"})
			return
		}
		t := c.tool(cp.Name)
		if t == nil {
			reply(nil, &rpcError{-32602, fmt.Sprintf("tool %q is not offered by this app's server", cp.Name)})
			return
		}
		if !slices.Contains(visibility(t), "app") {
			reply(nil, &rpcError{-32602, fmt.Sprintf("tool %q is not visible to apps", cp.Name)})
			return
		}
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: cp.Name, Arguments: cp.Arguments})
		if err != nil {
			reply(nil, &rpcError{-32603, err.Error()})
			return
		}
		reply(res, nil)
	case "resources/read":
		var rp mcp.ReadResourceParams
		if err := json.Unmarshal(req.Params, &rp); err != nil || rp.URI == "" {
			reply(nil, &rpcError{-32602, "resources/read needs {uri}"})
			return
		}
		res, err := c.session.ReadResource(ctx, &rp)
		if err != nil {
			reply(nil, &rpcError{-32603, err.Error()})
			return
		}
		reply(res, nil)
	case "resources/list":
		res, err := c.session.ListResources(ctx, &mcp.ListResourcesParams{})
		if err != nil {
			reply(nil, &rpcError{-32603, err.Error()})
			return
		}
		reply(res, nil)
	default:
		reply(nil, &rpcError{-32601, "Method not found: " + req.Method})
	}
}

// ------------------------------------------------------------------ MCP

type conn struct {
	id      string
	session *mcp.ClientSession
	mu      sync.Mutex
	tools   []*mcp.Tool
}

func connect(ctx context.Context, id, url string) (*conn, error) {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(uiExtensionID, map[string]any{"mimeTypes": []string{uiMIMEType}})
	client := mcp.NewClient(&mcp.Implementation{Name: "webchattest-product", Version: "0.0.1"}, &mcp.ClientOptions{Capabilities: caps})
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	c := &conn{id: id, session: s}
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			s.Close()
			return nil, err
		}
		c.tools = append(c.tools, t)
	}
	return c, nil
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

func uiMeta(meta mcp.Meta) map[string]any {
	m, _ := meta["ui"].(map[string]any)
	return m
}

func visibility(t *mcp.Tool) []string {
	raw, ok := uiMeta(t.Meta)["visibility"]
	if !ok {
		return []string{"model", "app"}
	}
	var out []string
	list, _ := raw.([]any)
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func resourceURI(t *mcp.Tool) string {
	if s, ok := uiMeta(t.Meta)["resourceUri"].(string); ok {
		return s
	}
	s, _ := t.Meta["ui/resourceUri"].(string)
	return s
}

func (c *conn) readUI(ctx context.Context, uri string) (map[string]any, error) {
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) == 0 || res.Contents[0].MIMEType != uiMIMEType {
		return nil, errors.New("resources/read " + uri + ": no " + uiMIMEType + " content")
	}
	item := res.Contents[0]
	// _meta.ui from the resources/list entry, overridden by the content
	// item's (hosts check both, preferring the content item).
	ui := map[string]any{}
	for r, err := range c.session.Resources(ctx, nil) {
		if err != nil {
			break
		}
		if r.URI == uri {
			for k, v := range uiMeta(r.Meta) {
				ui[k] = v
			}
		}
	}
	for k, v := range uiMeta(item.Meta) {
		ui[k] = v
	}
	return map[string]any{"uri": uri, "html": item.Text, "ui": ui}, nil
}

// ------------------------------------------------------------------ CSP

type uiCSP struct {
	ConnectDomains  []string `json:"connectDomains"`
	ResourceDomains []string `json:"resourceDomains"`
	FrameDomains    []string `json:"frameDomains"`
	BaseURIDomains  []string `json:"baseUriDomains"`
}

// buildCSP is the policy the sandbox document (and with it the srcdoc
// View) runs under: the declared domains, else the spec's default.
func buildCSP(c *uiCSP) string {
	if c == nil {
		return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'self'"
	}
	list := func(ds []string, none string) string {
		var ok []string
		for _, d := range ds {
			if d != "" && !strings.ContainsAny(d, "; \t\r\n'\",") && strings.Contains(d, "://") {
				ok = append(ok, d)
			}
		}
		if len(ok) == 0 {
			return none
		}
		return strings.Join(ok, " ")
	}
	res := list(c.ResourceDomains, "")
	with := func(base string) string { return strings.TrimSpace(base + " " + res) }
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + with("'self' 'unsafe-inline'"),
		"style-src " + with("'self' 'unsafe-inline'"),
		"img-src " + with("'self' data:"),
		"font-src " + with("'self'"),
		"media-src " + with("'self' data:"),
		"connect-src " + list(c.ConnectDomains, "'none'"),
		"frame-src " + list(c.FrameDomains, "'none'"),
		"base-uri " + list(c.BaseURIDomains, "'self'"),
		"object-src 'none'",
	}, "; ")
}

// ------------------------------------------------------------------ misc

var bundles sync.Map

func bundle(entry string) (string, error) {
	type result struct {
		js  string
		err error
	}
	if v, ok := bundles.Load(entry); ok {
		r := v.(result)
		return r.js, r.err
	}
	js, err := tsbundle.JS(tsbundle.Options{FS: web, Entry: entry})
	js = strings.ReplaceAll(js, "</script", `<\/script`)
	bundles.Store(entry, result{js, err})
	return js, err
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Logs collects a driver's log lines (hosts.Env.Logf) for assertions.
type Logs struct {
	mu    sync.Mutex
	lines []string
}

// Logf records one line.
func (l *Logs) Logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// String is every line so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Lookup turns a map into a Getenv.
func Lookup(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
