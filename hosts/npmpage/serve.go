package npmpage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/mcpconform/mcpconform/internal/mcpproxy"
	"github.com/mcpconform/mcpconform/internal/wiretrace"
)

// Servers are the two loopback origins of the host: the page (and its
// backend's /mcp, a reverse proxy to the fixture server, so the page's MCP
// client talks to its own origin as a host's front end talks to its
// backend) on 127.0.0.1, and the sandbox proxy on localhost, a different
// origin on another port.
type Servers struct {
	page, sandbox *http.Server
	PageURL       string // http://127.0.0.1:P1
	SandboxURL    string // http://localhost:P2/sandbox
}

func listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// StartServers serves page (bundled as js) and its sandbox proxy, with
// the page's /mcp proxied to the MCP server at mcpURL.
func StartServers(page *Page, js, mcpURL string) (*Servers, error) {
	target, err := url.Parse(mcpURL)
	if err != nil {
		return nil, fmt.Errorf("fixture server URL %q: %w", mcpURL, err)
	}
	pl, err := listen()
	if err != nil {
		return nil, err
	}
	sl, err := listen()
	if err != nil {
		pl.Close()
		return nil, err
	}
	s := &Servers{
		PageURL:    "http://" + pl.Addr().String(),
		SandboxURL: fmt.Sprintf("http://localhost:%d/sandbox", sl.Addr().(*net.TCPAddr).Port),
	}
	pm := http.NewServeMux()
	pm.Handle("/mcp", wiretrace.Handler("page-proxy", mcpProxy(target, wiretrace.Transport("page-proxy-out"))))
	pm.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		cfg := Config{MCP: s.PageURL + "/mcp", Sandbox: s.SandboxURL, Tool: r.URL.Query().Get("tool"), Args: map[string]any{}}
		if a := r.URL.Query().Get("args"); a != "" {
			b, err := base64.RawURLEncoding.DecodeString(a)
			if err == nil {
				err = json.Unmarshal(b, &cfg.Args)
			}
			if err != nil {
				http.Error(w, "args: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		if cfg.Tool == "" {
			http.Error(w, "no tool", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, HTML(page.Title, js, cfg))
	})
	sm := http.NewServeMux()
	sm.HandleFunc("GET /sandbox", page.Sandbox)
	s.page = &http.Server{Handler: pm, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: wiretrace.ErrorLog(nil), ConnState: wiretrace.ConnState("page-server")}
	s.sandbox = &http.Server{Handler: sm, ReadHeaderTimeout: 10 * time.Second}
	go s.page.Serve(pl)
	go s.sandbox.Serve(sl)
	return s, nil
}

// mcpProxy is the page backend's /mcp: a reverse proxy to the MCP server
// at target, over rt (nil: http.DefaultTransport).
func mcpProxy(target *url.URL, rt http.RoundTripper) http.Handler {
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host, r.Out.URL.Path, r.Out.URL.RawPath = target.Scheme, target.Host, target.Path, target.RawPath
			r.Out.Host = target.Host
			// The backend's own request: the browser's Origin is the
			// page's, not the fixture server's.
			r.Out.Header.Del("Origin")
		},
		Transport:     rt,
		FlushInterval: -1, // SSE streams pass through as they come
		ErrorLog:      wiretrace.ErrorLog(nil),
		// The page going away ends its open SSE stream: not an error.
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			wiretrace.Logf("page-proxy ErrorHandler %s: %v (client: %v)", r.Method, err, r.Context().Err())
			if errors.Is(err, context.Canceled) || r.Context().Err() != nil {
				return
			}
			http.Error(w, "fixture server: "+err.Error(), http.StatusBadGateway)
		},
	}
	return mcpproxy.FullDuplex(proxy)
}

// PageFor is the host page's URL showing tool called with args (JSON).
func (s *Servers) PageFor(tool string, args []byte) string {
	q := url.Values{}
	q.Set("tool", tool)
	q.Set("args", base64.RawURLEncoding.EncodeToString(args))
	return s.PageURL + "/?" + q.Encode()
}

// Close shuts both servers down.
func (s *Servers) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var errs []error
	for _, srv := range []*http.Server{s.page, s.sandbox} {
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
			if !errors.Is(err, context.DeadlineExceeded) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// RandomHex is n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
