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

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/tsbundle"
)

//go:embed web/*.ts
var web embed.FS

const suiteTool = "conformance_suite"

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

	o             Options
	host, sandbox *httptest.Server
	conns         []*reference.Conn
	mu            sync.Mutex
	pending       map[string]pendingCall
	mentioned     bool
	userMessages  []string
	hostJS        string
}

type pendingCall struct {
	conn *reference.Conn
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
	for i, u := range o.MCPServers {
		c, err := reference.Connect(ctx, fmt.Sprintf("s%d", i), u, "webchattest-product")
		if err != nil {
			p.Close()
			return nil, err
		}
		p.conns = append(p.conns, c)
	}
	p.host = httptest.NewServer(p.hostMux())
	p.Origin = p.host.URL
	p.URL = p.host.URL + "/"
	sandbox := http.NewServeMux()
	sandbox.Handle("GET "+o.SandboxPath, reference.SandboxHandler(p.Origin))
	p.sandbox = httptest.NewServer(sandbox)
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
		c.Close()
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
	m.Handle("POST /api/app", reference.AppHandler(p.conns))
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
			t := c.Tool(name)
			if t == nil || !slices.Contains(reference.Visibility(t), "model") {
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
		for _, t := range c.Tools() {
			if slices.Contains(reference.Visibility(t), "model") {
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
	res, err := pc.conn.Session().CallTool(r.Context(), &mcp.CallToolParams{Name: pc.tool.Name, Arguments: pc.args})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	launch := map[string]any{"serverId": pc.conn.ID(), "tool": pc.tool, "callId": randomHex(8), "arguments": pc.args, "result": res}
	if uri := reference.ResourceURI(pc.tool); uri != "" {
		ui, err := pc.conn.ReadUI(r.Context(), uri)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		launch["resource"] = ui
	}
	writeJSON(w, launch)
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
