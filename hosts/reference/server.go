package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the reference host's hostInfo.version.
const Version = "0.1.0"

// Server is the reference host's backend: the host page on one origin, the
// sandbox proxy on another, the MCP connections and the agent.
type Server struct {
	Agent      *Agent
	conns      []*conn
	defects    DefectSet
	variations VariationSet
	// appTools are the tools the shown Views provide (draft §App-Provided
	// Tools), in the agent's tool list while their View is shown.
	appTools appToolRegistry

	hostLn, sandboxLn net.Listener
	hostSrv, sandbox  *http.Server
	// HostURL and SandboxURL are the two origins. They differ in host name
	// (127.0.0.1 vs localhost), so they are different sites and Chromium
	// puts the proxy in its own process, as a real host's would be.
	HostURL, SandboxURL string
	// stop ends the host page's long-lived requests (its app socket),
	// which Shutdown does not wait for.
	stop context.CancelFunc
}

// ServerOptions configure NewServer.
type ServerOptions struct {
	// MCPServers are the Streamable HTTP URLs to connect to, in order.
	MCPServers []string
	// Listen is the host page's address; empty means 127.0.0.1:0. The
	// sandbox listens on the same interface, on another port.
	Listen string
	// Defects make the host break requirements on purpose (self-test).
	Defects DefectSet
	// Variations make the host differ within the spec (self-test).
	Variations VariationSet
}

// NewServer connects to the MCP servers and starts both origins.
func NewServer(ctx context.Context, o ServerOptions) (*Server, error) {
	if len(o.MCPServers) == 0 {
		return nil, errors.New("reference host: no MCP server to connect to")
	}
	s := &Server{defects: o.Defects, variations: o.Variations}
	if s.defects == nil {
		s.defects = DefectSet{}
	}
	if s.variations == nil {
		s.variations = VariationSet{}
	}
	for i, u := range o.MCPServers {
		if s.variations["server-initialize-probes"] {
			// The variation: probe sessions before the real one, the
			// first with empty capabilities.
			if err := probeSessions(ctx, u, Version); err != nil {
				s.Close()
				return nil, err
			}
		}
		c, err := connect(ctx, fmt.Sprintf("s%d", i), u, "mcpconform-reference-host", !s.defects["no-ui-extension"])
		if err != nil {
			s.Close()
			return nil, err
		}
		s.conns = append(s.conns, c)
	}
	s.Agent = &Agent{conns: s.conns, defects: s.defects, appTools: &s.appTools}

	addr := o.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var err error
	if s.hostLn, err = net.Listen("tcp", addr); err != nil {
		s.Close()
		return nil, fmt.Errorf("reference host: %w", err)
	}
	hostIP, _, _ := net.SplitHostPort(s.hostLn.Addr().String())
	if s.sandboxLn, err = net.Listen("tcp", net.JoinHostPort(hostIP, "0")); err != nil {
		s.Close()
		return nil, fmt.Errorf("reference host sandbox: %w", err)
	}
	s.HostURL = "http://" + s.hostLn.Addr().String()
	sbPort := s.sandboxLn.Addr().(*net.TCPAddr).Port
	if s.defects["sandbox-on-host-origin"] {
		s.SandboxURL = s.HostURL
	} else if ip := net.ParseIP(hostIP); ip != nil && ip.IsLoopback() {
		// A different host name makes a different site, not only origin.
		s.SandboxURL = fmt.Sprintf("http://localhost:%d", sbPort)
	} else {
		s.SandboxURL = "http://" + s.sandboxLn.Addr().String()
	}

	life, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.hostSrv = &http.Server{Handler: s.hostMux(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return life }}
	s.sandbox = &http.Server{Handler: s.sandboxMux(), ReadHeaderTimeout: 10 * time.Second}
	go s.hostSrv.Serve(s.hostLn)
	go s.sandbox.Serve(s.sandboxLn)
	return s, nil
}

// Close stops both origins and the MCP connections.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s.stop != nil {
		s.stop()
	}
	if s.hostSrv != nil {
		s.hostSrv.Shutdown(ctx)
	} else if s.hostLn != nil {
		s.hostLn.Close()
	}
	if s.sandbox != nil {
		s.sandbox.Shutdown(ctx)
	} else if s.sandboxLn != nil {
		s.sandboxLn.Close()
	}
	if s.Agent != nil {
		s.Agent.calls.cancelAll()
	}
	for _, c := range s.conns {
		c.session.Close()
	}
	return nil
}

func (s *Server) hostMux() *http.ServeMux {
	m := http.NewServeMux()
	if s.defects["sandbox-on-host-origin"] {
		// The defect: the proxy is served by the host page's own origin.
		m.Handle("GET /sandbox", s.sandboxMux())
	}
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		html, err := hostPage(s.SandboxURL, s.defects.List(), s.variations.List())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte(html))
	})
	m.HandleFunc("POST /api/chat", s.handleChat)
	m.HandleFunc("POST /api/app", s.handleApp)
	m.HandleFunc("GET /api/app/socket", func(w http.ResponseWriter, r *http.Request) { serveAppSocket(w, r, s.conns, s.defects) })
	m.HandleFunc("POST /api/model-context", func(w http.ResponseWriter, r *http.Request) {
		var body json.RawMessage
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.Agent.SetModelContext(body)
		writeJSON(w, map[string]any{})
	})
	// A View's tools, once the host page has listed them; none when it
	// removes the View.
	m.HandleFunc("POST /api/app-tools", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			CallID string   `json:"callId"`
			Tools  []string `json:"tools"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil || body.CallID == "" {
			http.Error(w, "want {callId, tools}", http.StatusBadRequest)
			return
		}
		s.appTools.set(body.CallID, body.Tools)
		writeJSON(w, map[string]any{})
	})
	m.HandleFunc("POST /api/sample", func(w http.ResponseWriter, r *http.Request) {
		var body json.RawMessage
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := s.Agent.Sample(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"result": res})
	})
	// ?session=new: the list of a conversation started now beside this
	// one (a page opened with ?session=new shows it).
	m.HandleFunc("GET /api/model-tools", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("session") == "new" {
			writeJSON(w, s.NewSessionToolNames())
			return
		}
		writeJSON(w, s.ModelToolNames())
	})
	// The tool picker: the same tools, with what the picker shows, and a
	// direct call that takes the agent's path (the reply is /api/chat's).
	m.HandleFunc("GET /api/tools", func(w http.ResponseWriter, r *http.Request) {
		tools := s.Agent.ModelToolInfo()
		if tools == nil {
			tools = []ToolInfo{}
		}
		writeJSON(w, tools)
	})
	m.HandleFunc("POST /api/tools/call", s.handleToolCall)
	// The outcome of an agent tool call whose View is shown: blocks until
	// the call completes or is cancelled.
	m.HandleFunc("POST /api/call/wait", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			CallID string `json:"callId"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := s.Agent.calls.wait(r.Context(), body.CallID)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, out)
	})
	// Stop: cancel a running agent tool call (the SDK sends
	// notifications/cancelled to the server).
	m.HandleFunc("POST /api/call/cancel", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			CallID string `json:"callId"`
			Reason string `json:"reason"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if body.Reason == "" {
			body.Reason = "cancelled by the user"
		}
		writeJSON(w, map[string]any{"cancelled": s.Agent.calls.cancel(body.CallID, body.Reason)})
	})
	m.HandleFunc("POST /api/new-conversation", func(w http.ResponseWriter, r *http.Request) {
		s.Agent.NewConversation()
		writeJSON(w, map[string]any{})
	})
	return m
}

func (s *Server) sandboxMux() *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("GET /sandbox", sandboxHandler(s.HostURL, s.defects, s.variations))
	return m
}

// sandboxHandler serves the sandbox proxy page for the host page on
// hostURL, under the CSP built from the csp query parameter (the View's
// _meta.ui.csp, as JSON).
func sandboxHandler(hostURL string, defects DefectSet, variations VariationSet) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Only the host page may frame the proxy.
		if ref := r.Header.Get("Referer"); ref != "" && !strings.HasPrefix(ref, hostURL+"/") {
			http.Error(w, "the sandbox proxy only serves "+hostURL, http.StatusForbidden)
			return
		}
		var csp *uiCSP
		if q := r.URL.Query().Get("csp"); q != "" {
			csp = &uiCSP{}
			if err := json.Unmarshal([]byte(q), csp); err != nil {
				http.Error(w, "bad csp parameter: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		policy := buildCSP(csp, defects)
		if variations["csp-stricter"] {
			policy = stricterCSP(policy)
		}
		metaCSP := ""
		if variations["csp-meta"] {
			// The variation: the proxy's own document carries only
			// frame-ancestors; the View's policy is a <meta> in its srcdoc.
			metaCSP, policy = policy, ""
		}
		var on []string
		for _, d := range proxyDefects {
			if defects[d] {
				on = append(on, d)
			}
		}
		html, err := sandboxPage(hostURL, metaCSP, on)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		// The View is a srcdoc child of this document and inherits its
		// policy, so the View runs under exactly this CSP.
		if policy != "" {
			policy += "; "
		}
		w.Header().Set("Content-Security-Policy", policy+"frame-ancestors "+hostURL)
		w.Write([]byte(html))
	}
}

type chatRequest struct {
	Text string `json:"text"`
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	onSuccess, onError := Outcome(req.Text)
	// A tool a shown View provides: the page calls it in the View.
	if vc := s.Agent.AppToolCall(req.Text); vc != nil {
		vc.OnSuccess, vc.OnError = onSuccess, onError
		writeJSON(w, map[string]any{"reply": fmt.Sprintf("Calling %s (a tool of the app).", vc.Name), "viewCall": vc})
		return
	}
	// The defect closed-app-tool-answered: a call of a tool of a View the
	// host has removed gets an empty success instead of an error.
	if m := callTool.FindStringSubmatch(req.Text); m != nil && s.defects["closed-app-tool-answered"] && s.appTools.wasClosed(m[1]) {
		writeJSON(w, map[string]any{"reply": withOutcome(fmt.Sprintf("Called %s: (no text)", m[1]), onSuccess)})
		return
	}
	reply, launch, err := s.Agent.Reply(r.Context(), req.Text)
	if err != nil {
		writeJSON(w, map[string]any{"reply": withOutcome("Error: "+err.Error(), onError)})
		return
	}
	writeJSON(w, map[string]any{"reply": withOutcome(reply, onSuccess), "launch": launch})
}

// withOutcome ends an answer with the outcome word a call request asked
// for (Outcome), if any.
func withOutcome(reply, word string) string {
	if word == "" {
		return reply
	}
	return reply + " " + word
}

// handleToolCall is the user calling a tool from the tool picker:
// {name, arguments?}, arguments a JSON object.
func (s *Server) handleToolCall(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || req.Name == "" {
		http.Error(w, "a tool call needs {name, arguments?}", http.StatusBadRequest)
		return
	}
	var args map[string]any
	if len(req.Arguments) > 0 && string(req.Arguments) != "null" {
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			http.Error(w, "arguments must be a JSON object", http.StatusBadRequest)
			return
		}
	}
	reply, launch, err := s.Agent.CallTool(r.Context(), req.Name, args)
	if err != nil {
		writeJSON(w, map[string]any{"reply": "Error: " + err.Error()})
		return
	}
	writeJSON(w, map[string]any{"reply": reply, "launch": launch})
}

// appRequest is a JSON-RPC request from a View that the page forwards for
// the server connection the View was loaded from.
type appRequest struct {
	ServerID string          `json:"serverId"`
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (s *Server) handleApp(w http.ResponseWriter, r *http.Request) {
	serveApp(w, r, s.conns, s.defects)
}

// serveApp answers a View's request that the page forwards (an
// appRequest), through appCall.
func serveApp(w http.ResponseWriter, r *http.Request, conns []*conn, defects DefectSet) {
	var req appRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res, rerr := appCall(r.Context(), conns, defects, req)
	if rerr != nil {
		writeJSON(w, map[string]any{"error": rerr})
		return
	}
	writeJSON(w, map[string]any{"result": res})
}

// appCall proxies a View's request to its own server only, enforcing tool
// visibility (S L399-402).
func appCall(ctx context.Context, conns []*conn, defects DefectSet, req appRequest) (any, *rpcError) {
	var c *conn
	for _, x := range conns {
		if x.id == req.ServerID {
			c = x
			break
		}
	}
	if c == nil {
		return nil, &rpcError{-32603, "unknown server connection " + req.ServerID}
	}
	switch req.Method {
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Name == "" {
			return nil, &rpcError{-32602, "tools/call needs params {name, arguments}"}
		}
		if defects["app-tools-blocked"] {
			return nil, &rpcError{-32601, "this host does not let apps call tools"}
		}
		t := c.tool(p.Name)
		if t == nil && defects["cross-server-calls-allowed"] {
			// The defect: look the tool up on every connection.
			for _, other := range conns {
				if t = other.tool(p.Name); t != nil {
					c = other
					break
				}
			}
		}
		if t == nil {
			// Tools of other servers are not reachable from this View.
			return nil, &rpcError{-32602, fmt.Sprintf("tool %q is not offered by this app's server", p.Name)}
		}
		// The defect visibility-guard-exact rejects only the exact list
		// ["model"], as the SDK's isToolVisibilityModelOnly matches.
		guarded := !slices.Contains(visibility(t), "app")
		if defects["visibility-guard-exact"] {
			guarded = slices.Equal(visibility(t), []string{"model"})
		}
		// The defect visibility-default-model-only reads an omitted
		// visibility as ["model"].
		if _, said := uiMeta(t.Meta)["visibility"]; !said && defects["visibility-default-model-only"] {
			guarded = true
		}
		if guarded && !defects["no-visibility-guard"] {
			return nil, &rpcError{-32602, fmt.Sprintf("tool %q is not visible to apps (visibility %v)", p.Name, visibility(t))}
		}
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: p.Name, Arguments: p.Arguments})
		if err != nil {
			return nil, &rpcError{-32603, err.Error()}
		}
		return res, nil
	case "resources/read":
		var p mcp.ReadResourceParams
		if err := json.Unmarshal(req.Params, &p); err != nil || p.URI == "" {
			return nil, &rpcError{-32602, "resources/read needs params {uri}"}
		}
		res, err := c.session.ReadResource(ctx, &p)
		if err != nil {
			return nil, &rpcError{-32603, err.Error()}
		}
		return res, nil
	case "resources/list":
		res, err := c.session.ListResources(ctx, &mcp.ListResourcesParams{})
		if err != nil {
			return nil, &rpcError{-32603, err.Error()}
		}
		return res, nil
	}
	return nil, &rpcError{-32601, "Method not found: " + req.Method}
}

// uiCSP is _meta.ui.csp.
type uiCSP struct {
	ConnectDomains  []string `json:"connectDomains"`
	ResourceDomains []string `json:"resourceDomains"`
	FrameDomains    []string `json:"frameDomains"`
	BaseURIDomains  []string `json:"baseUriDomains"`
}

// buildCSP turns _meta.ui.csp into a policy (S L274-287, L1725-1753). With
// no declaration it is the spec's restrictive default plus object-src 'none'
// from the draft. Declared domains are sanitised so that a value can never
// add a directive.
func buildCSP(c *uiCSP, defects DefectSet) string {
	if defects["csp-declaration-ignored"] {
		c = nil
	}
	if c == nil && defects["default-csp-loose"] {
		// The defect: no declaration is taken to mean "no restriction".
		return "default-src * data: blob: 'unsafe-inline' 'unsafe-eval'; object-src 'none'"
	}
	if c == nil && defects["default-object-src-missing"] {
		// The defect: the default lists the fetch directives the stable
		// text names but neither default-src 'none' nor object-src 'none',
		// so nothing restricts plugin content.
		return "script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
			"img-src 'self' data:; media-src 'self' data:; connect-src 'none'; base-uri 'self'"
	}
	if c == nil && defects["default-csp-allowlist"] {
		// The defect: the default admits a fixed third-party CDN for
		// connections and images (as ChatGPT's did, ext-apps #434).
		return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
			"img-src 'self' data: https://cdn.jsdelivr.net; media-src 'self' data:; connect-src https://cdn.jsdelivr.net; object-src 'none'; base-uri 'self'"
	}
	if c == nil {
		// base-uri does not fall back to default-src; the proxy rules ask
		// for 'self' unless baseUriDomains are declared (S L482).
		return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
			"img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'self'"
	}
	res := strings.Join(sanitizeDomains(c.ResourceDomains), " ")
	if defects["resource-domains-ignored"] {
		// The defect: a fixed policy for scripts, styles, images, fonts
		// and media, whatever resourceDomains declares (claude.ai, ext-apps
		// #761).
		res = ""
	}
	src := func(base string, extra string) string {
		return strings.TrimSpace(base + " " + extra)
	}
	connect := "'none'"
	if d := sanitizeDomains(c.ConnectDomains); len(d) > 0 {
		connect = strings.Join(d, " ")
	}
	frame := "'none'"
	if d := sanitizeDomains(c.FrameDomains); len(d) > 0 {
		frame = strings.Join(d, " ")
	}
	base := "'self'"
	if d := sanitizeDomains(c.BaseURIDomains); len(d) > 0 {
		base = strings.Join(d, " ")
	}
	if defects["csp-undeclared-connect-allowed"] {
		connect += " *"
	}
	if defects["frame-domains-ignored"] {
		// The defect: frame-src stays 'none' whatever frameDomains declares.
		frame = "'none'"
	}
	if defects["frame-src-open"] {
		frame = "*"
	}
	if defects["base-uri-open"] {
		base = "*"
	}
	object := "object-src 'none'"
	if defects["object-src-missing"] {
		object = "object-src *"
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + src("'self' 'unsafe-inline'", res),
		"style-src " + src("'self' 'unsafe-inline'", res),
		"img-src " + src("'self' data:", res),
		"font-src " + src("'self'", res),
		"media-src " + src("'self' data:", res),
		"connect-src " + connect,
		"frame-src " + frame,
		"base-uri " + base,
		object,
	}, "; ")
}

// stricterCSP is the csp-stricter variation: further restrictions that
// allow nothing undeclared (S L286 "Host MAY further restrict").
func stricterCSP(policy string) string {
	var out []string
	for _, d := range strings.Split(policy, "; ") {
		name, _, _ := strings.Cut(d, " ")
		switch name {
		case "font-src", "media-src", "img-src":
			// 'self' is the sandbox origin, which serves no fonts, media
			// or images; images from data: URLs are refused too (as MCP
			// Inspector's policy does); declared resourceDomains stay.
			d = strings.Replace(d, " 'self'", "", 1)
			if name == "img-src" {
				d = strings.Replace(d, " data:", "", 1)
			}
			if d == name {
				d = name + " 'none'"
			}
		}
		out = append(out, d)
	}
	return strings.Join(append(out, "form-action 'none'", "worker-src 'none'", "manifest-src 'none'"), "; ")
}

func sanitizeDomains(ds []string) []string {
	var out []string
	for _, d := range ds {
		if d == "" || strings.ContainsAny(d, "; \t\r\n'\",") {
			continue
		}
		if u, err := url.Parse(d); err != nil || u.Scheme == "" || u.Host == "" {
			continue
		}
		out = append(out, d)
	}
	return out
}

// ModelToolNames is the agent's tool list as the model sees it: under the
// model-tool-names-namespaced variation each name carries its server's
// prefix ("s0__conformance_suite").
func (s *Server) ModelToolNames() []string {
	// The shown Views' own tools (draft §App-Provided Tools).
	return append(s.serverToolNames(), s.appTools.names()...)
}

// NewSessionToolNames is the agent's tool list in a conversation started
// now beside the current one: the servers' tools only, since no View is
// shown there and app tool registrations are not persisted (draft L2643).
// Under the defect app-tools-persisted the page's store of every View's
// registration, shown or since closed, is restored into it.
func (s *Server) NewSessionToolNames() []string {
	names := s.serverToolNames()
	if s.defects["app-tools-persisted"] {
		names = append(names, s.appTools.everRegistered()...)
	}
	return names
}

func (s *Server) serverToolNames() []string {
	if !s.variations["model-tool-names-namespaced"] {
		return s.Agent.ModelTools()
	}
	var names []string
	for _, t := range s.Agent.ModelToolInfo() {
		names = append(names, t.Server+"__"+t.Name)
	}
	return names
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
