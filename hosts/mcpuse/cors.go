package mcpuse

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/mcpproxy"
	"github.com/mcpconform/mcpconform/internal/wiretrace"
)

// corsFront serves the fixture server on another loopback port with the
// CORS headers a browser client needs, so that the Inspector's page talks
// to it directly (its "Direct" connection), as it does with any MCP server
// that lets browsers in. Without them the page falls back to the
// Inspector's own proxy (/inspector/api/proxy), which lets 120 requests a
// minute through for all callers together and answers 429 beyond: the
// suite sends more than that, and a check would then judge the rate
// limit, not the host's MCP Apps side.
type corsFront struct {
	srv *http.Server
	URL string // the fixture server's URL on the front (same path)
}

func startCORSFront(serverURL string) (*corsFront, error) {
	target, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := wiretrace.Handler("cors-proxy", corsHandler(target, wiretrace.Transport("cors-proxy-out")))
	f := &corsFront{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: wiretrace.ErrorLog(nil), ConnState: wiretrace.ConnState("cors-server")}}
	f.URL = "http://" + ln.Addr().String() + "/" + strings.TrimPrefix(target.EscapedPath(), "/")
	if target.RawQuery != "" {
		f.URL += "?" + target.RawQuery
	}
	go f.srv.Serve(ln)
	return f, nil
}

// corsHandler is the front's handler: CORS for the browser, the rest
// reverse-proxied to target's host over rt (nil: http.DefaultTransport).
func corsHandler(target *url.URL, rt http.RoundTripper) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	rp.Transport = rt
	rp.FlushInterval = -1 // SSE streams pass through as they come
	// A tab closing cuts its open stream: nothing to log.
	rp.ErrorLog = wiretrace.ErrorLog(log.New(io.Discard, "", 0))
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		r.Host = target.Host
		r.Header.Del("Origin") // the front, not the page, is the fixture server's client
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		wiretrace.Logf("cors-proxy ErrorHandler %s: %v (client: %v)", r.Method, err, r.Context().Err())
		if errors.Is(err, context.Canceled) || r.Context().Err() != nil {
			return // the page went away from an open stream
		}
		http.Error(w, "fixture server: "+err.Error(), http.StatusBadGateway)
	}
	proxy := mcpproxy.FullDuplex(rp)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := w.Header()
		o.Set("Access-Control-Allow-Origin", "*")
		o.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
		if r.Method == http.MethodOptions {
			o.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
			if ah := r.Header.Get("Access-Control-Request-Headers"); ah != "" {
				o.Set("Access-Control-Allow-Headers", ah)
			}
			o.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		proxy.ServeHTTP(w, r)
	})
}

func (f *corsFront) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if f.srv.Shutdown(ctx) != nil {
		f.srv.Close()
	}
}
