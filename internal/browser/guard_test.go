package browser

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestGuardAllowList(t *testing.T) {
	g := &guardProxy{allow: []string{"chatgpt.com", ".oaiusercontent.com"}}
	for host, want := range map[string]bool{
		"chatgpt.com":                      true,
		"CDN.chatgpt.com":                  true,
		"x.web-sandbox.oaiusercontent.com": true,
		"evilchatgpt.com":                  false,
		"chatgpt.com.evil.net":             false,
		"example.com":                      false,
		"":                                 false,
	} {
		if got := g.allowed(host); got != want {
			t.Errorf("allowed(%q) = %v, want %v", host, got, want)
		}
	}
}

// The guard refuses a destination that is not allowed, over plain HTTP and
// CONNECT, and forwards one that is. The "allowed" destination here is a
// loopback server reached by name, so nothing leaves the machine.
func TestGuardRefusesAndForwards(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream") }))
	defer up.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(up.URL, "http://"))
	ln, err := guard([]string{"localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	get := func(target string) (int, string) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		u, err := url.Parse(target)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: "+u.Host+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://blocked.invalid/x"); code != 403 || !strings.Contains(body, "blocked a request to blocked.invalid") {
		t.Errorf("not allowed: %d %q", code, body)
	}
	if code, body := get("http://localhost:" + port + "/"); code != 200 || body != "upstream" {
		t.Errorf("allowed: %d %q", code, body)
	}
	// CONNECT to a refused host.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "CONNECT blocked.invalid:443 HTTP/1.1\r\nHost: blocked.invalid:443\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 403 {
		t.Errorf("CONNECT to a refused host: %v %v", resp, err)
	}
}
