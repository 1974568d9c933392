package bridge_test

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
)

// The browser reaches loopback, and every other destination is refused by
// the guard proxy before it leaves the machine (the error names the proxy,
// so this test itself sends nothing off loopback even if the guard broke:
// .invalid names never resolve).
func TestBrowserReachesOnlyLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("loopback ok")) })}
	go srv.Serve(ln)
	defer srv.Close()

	br, err := bridge.Launch(bridge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	c, err := br.NewContext(pwOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto("http://" + ln.Addr().String() + "/"); err != nil {
		t.Fatalf("loopback page: %v", err)
	}
	if txt, _ := p.Locator("body").TextContent(); txt != "loopback ok" {
		t.Fatalf("loopback body %q", txt)
	}
	resp, err := p.Goto("http://mcpconform-guard-test.invalid/path")
	if err != nil {
		t.Fatalf("navigation: %v", err)
	}
	body, _ := p.Locator("body").TextContent()
	if resp.Status() != 403 || !strings.Contains(body, "mcpconform blocked a request to mcpconform-guard-test.invalid") {
		t.Fatalf("a non-loopback navigation was not answered by the guard proxy: %d %q", resp.Status(), body)
	}
	// https goes through CONNECT, which the guard refuses as well.
	if _, err := p.Goto("https://mcpconform-guard-test.invalid/"); err == nil || !strings.Contains(err.Error(), "ERR_TUNNEL_CONNECTION_FAILED") {
		t.Fatalf("https to a non-loopback host: want ERR_TUNNEL_CONNECTION_FAILED, got %v", err)
	}
}

func pwOpts() playwright.BrowserNewContextOptions { return playwright.BrowserNewContextOptions{} }
