package browser

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// guard is the proxy every non-loopback request of the browser goes to
// (Chromium bypasses proxies for loopback by itself). It refuses every
// destination with 403 and a message naming it, so a blocked load is easy
// to recognise in screenshots and console lines, except the hosts in allow
// (a hosted product under test), which it forwards.
func guard(allow []string) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback guard: %w", err)
	}
	g := &guardProxy{allow: allow}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: g}
	go srv.Serve(ln)
	return ln, nil
}

// blackhole is the guard with nothing allowed.
func blackhole() (net.Listener, error) { return guard(nil) }

type guardProxy struct{ allow []string }

// allowed reports whether host (no port) is an allowed name or a subdomain.
func (g *guardProxy) allowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range g.allow {
		a = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(a), "."))
		if a != "" && (host == a || strings.HasSuffix(host, "."+a)) {
			return true
		}
	}
	return false
}

func (g *guardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !g.allowed(host) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "mcpconform blocked a request to %s: test browsers may only reach loopback\n", r.Host)
		return
	}
	if r.Method == http.MethodConnect {
		g.tunnel(w, r)
		return
	}
	// Plain http to an allowed host: forward as is.
	r.RequestURI = ""
	r.Header.Del("Proxy-Connection")
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func (g *guardProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := net.DialTimeout("tcp", r.Host, 15*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
	rw.Flush()
	go func() { io.Copy(up, rw); up.Close() }()
	io.Copy(conn, up)
	conn.Close()
}
