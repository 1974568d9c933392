package generic

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
)

// devHost is testdata/devhost served as a host team serves its
// development build: the page (and its config) on 127.0.0.1, the sandbox
// proxy on localhost, another port and so another origin, with the
// Content-Security-Policy header the View's _meta.ui.csp asks for. The
// page's MCP client calls the MCP server itself, from the browser.
type devHost struct {
	URL  string // the page, http://127.0.0.1:PORT
	page *http.Server
	sbox *http.Server
}

// startDevHost serves the development host; server, when not empty, is
// the MCP server its backend has configured (the page connects to it on
// load, as a host configured once does), else the user types one in.
func startDevHost(t *testing.T, server string) *devHost {
	t.Helper()
	file := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "devhost", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	index, script, sandbox := file("index.html"), file("host.js"), file("sandbox.html")
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &devHost{URL: "http://" + pl.Addr().String()}
	sandboxURL := "http://localhost:" + strings.TrimPrefix(sl.Addr().String(), "127.0.0.1:") + "/sandbox.html"

	pm := http.NewServeMux()
	serve := func(body, ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Cache-Control", "no-store")
			w.Write([]byte(body))
		}
	}
	pm.HandleFunc("GET /{$}", serve(index, "text/html; charset=utf-8"))
	pm.HandleFunc("GET /host.js", serve(script, "text/javascript"))
	cfg, _ := json.Marshal(map[string]string{"sandbox": sandboxURL, "server": server})
	pm.HandleFunc("GET /config.json", serve(string(cfg), "application/json"))

	sm := http.NewServeMux()
	sm.HandleFunc("GET /sandbox.html", func(w http.ResponseWriter, r *http.Request) {
		csp, err := sandboxCSP(r.URL.Query().Get("csp"))
		if err != nil {
			http.Error(w, "csp: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Security-Policy", csp)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte(strings.ReplaceAll(sandbox, "{{HOST_ORIGIN}}", d.URL)))
	})
	d.page = &http.Server{Handler: pm, ReadHeaderTimeout: 10 * time.Second}
	d.sbox = &http.Server{Handler: sm, ReadHeaderTimeout: 10 * time.Second}
	go d.page.Serve(pl)
	go d.sbox.Serve(sl)
	t.Cleanup(func() {
		d.page.Close()
		d.sbox.Close()
	})
	return d
}

// sandboxCSP is the policy for a View that declares q (its _meta.ui.csp
// as JSON; "" when it declares none): the spec's restrictive default,
// widened only by the declared domains.
func sandboxCSP(q string) (string, error) {
	var c mcpserver.CSP
	if q != "" {
		if err := json.Unmarshal([]byte(q), &c); err != nil {
			return "", err
		}
	}
	list := func(base string, domains []string, none string) string {
		var ok []string
		for _, d := range domains {
			if !strings.ContainsAny(d, ";,'\" \r\n") {
				ok = append(ok, d)
			}
		}
		v := strings.TrimSpace(base + " " + strings.Join(ok, " "))
		if v == "" {
			return none
		}
		return v
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + list("'self' 'unsafe-inline'", c.ResourceDomains, ""),
		"style-src " + list("'self' 'unsafe-inline'", c.ResourceDomains, ""),
		"img-src " + list("'self' data:", c.ResourceDomains, ""),
		"font-src " + list("'self'", c.ResourceDomains, ""),
		"media-src " + list("'self' data:", c.ResourceDomains, ""),
		"connect-src " + list("", c.ConnectDomains, "'none'"),
		"frame-src " + list("", c.FrameDomains, "'none'"),
		"object-src 'none'",
		"base-uri " + list("", c.BaseURIDomains, "'self'"),
	}, "; "), nil
}
