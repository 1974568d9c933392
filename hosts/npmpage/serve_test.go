package npmpage

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/internal/testkit/mcpproxytest"
)

// testPage serves a sandbox proxy that says what it is.
var testPage = &Page{Name: "test", Title: "test host", Sandbox: func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, "sandbox proxy, csp="+r.URL.Query().Get("csp"))
}}

// The two origins: the page with its configuration, /mcp proxied to the
// MCP server without the browser's Origin, the sandbox proxy on localhost;
// both refuse connections after close.
func TestServers(t *testing.T) {
	var gotOrigin, gotPath string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotOrigin, gotPath = r.Header.Get("Origin"), r.URL.Path
		io.WriteString(w, "upstream")
	}))
	defer up.Close()
	s, err := StartServers(testPage, "/* js */", up.URL+"/mcp")
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(s.PageURL)
	su, _ := url.Parse(s.SandboxURL)
	if pu.Hostname() != "127.0.0.1" || su.Hostname() != "localhost" || pu.Port() == su.Port() {
		t.Fatalf("page %s and sandbox %s: want two loopback origins", s.PageURL, s.SandboxURL)
	}
	get := func(u string, hdr map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get(s.PageFor(mcpserver.ToolSuite, []byte(`{"nonce":"</script><x>"}`)), nil)
	if code != 200 || !strings.Contains(body, "/* js */") || strings.Contains(body, "</script><x>") {
		t.Fatalf("page: %d %q", code, body)
	}
	i := strings.Index(body, ConfigVar+" = ")
	j := strings.Index(body[i:], ";</script>")
	var cfg Config
	if i < 0 || j < 0 || json.Unmarshal([]byte(strings.ReplaceAll(body[i+len(ConfigVar+" = "):i+j], `<\/`, `</`)), &cfg) != nil {
		t.Fatalf("no page configuration in %q", body)
	}
	want := Config{MCP: s.PageURL + "/mcp", Sandbox: s.SandboxURL, Tool: mcpserver.ToolSuite, Args: map[string]any{"nonce": "</script><x>"}}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("page configuration %+v, want %+v", cfg, want)
	}
	if code, _ := get(s.PageURL+"/?tool=x&args=!!!", nil); code != http.StatusBadRequest {
		t.Errorf("bad args: %d, want 400", code)
	}
	if code, body := get(s.PageURL+"/mcp", map[string]string{"Origin": s.PageURL}); code != 200 || body != "upstream" || gotOrigin != "" || gotPath != "/mcp" {
		t.Errorf("/mcp: %d %q, upstream saw Origin %q path %q", code, body, gotOrigin, gotPath)
	}
	if code, body := get(s.SandboxURL+"?csp=x", nil); code != 200 || body != "sandbox proxy, csp=x" {
		t.Errorf("sandbox: %d %q", code, body)
	}
	if code, _ := get(strings.Replace(s.SandboxURL, "/sandbox", "/", 1), nil); code != http.StatusNotFound {
		t.Errorf("the sandbox origin serves more than the proxy: %d", code)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{pu.Host, "127.0.0.1:" + su.Port()} {
		if c, err := net.DialTimeout("tcp", u, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts connections after close", u)
		}
	}
}

// An answer streamed back to a POST through the page's /mcp arrives whole
// even when the proxy's transport reads the request body again after the
// answer started (the stall of hosts/mcpui/README.md).
func TestMCPProxyKeepsStreamedAnswer(t *testing.T) {
	mcpproxytest.CheckStreamKept(t, mcpProxy)
}
