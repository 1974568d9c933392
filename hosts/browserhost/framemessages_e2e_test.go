package browserhost_test

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// The View of the handshake below: it asks ui/initialize and marks the
// host's ping as received in its title.
const handshakeView = `<!doctype html><title>view</title><script>
addEventListener("message", (ev) => { if (ev.data && ev.data.method === "ping") document.title = "pinged"; });
parent.postMessage({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} }, "*");
</script>`

// A proxy on its own origin that writes the View into an about:blank frame
// with document.write, as mcp-ui's and the AppBridge example's do: the
// record must survive document.open().
const handshakeProxy = `<!doctype html><body><script>
const inner = document.createElement("iframe");
document.body.appendChild(inner);
addEventListener("message", (ev) => {
  if (ev.source === parent) {
    if (ev.data.method === "ui/notifications/sandbox-resource-ready") {
      const d = inner.contentDocument; d.open(); d.write(ev.data.params.html); d.close();
    } else inner.contentWindow.postMessage(ev.data, "*");
  } else if (ev.source === inner.contentWindow) parent.postMessage(ev.data, "*");
});
parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, "*");
</script></body>`

// The host page: the proxy's frame, the View's HTML once the proxy is
// ready, the answer to ui/initialize and a ping of its own.
const handshakeHost = `<!doctype html><body><iframe id="proxy" src="%s"></iframe><script>
const html = %s;
const proxy = document.getElementById("proxy");
addEventListener("message", (ev) => {
  if (ev.source !== proxy.contentWindow) return;
  if (ev.data.method === "ui/notifications/sandbox-proxy-ready") {
    proxy.contentWindow.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: { html } }, "*");
  } else if (ev.data.method === "ui/initialize") {
    proxy.contentWindow.postMessage({ jsonrpc: "2.0", id: ev.data.id, result: {} }, "*");
    proxy.contentWindow.postMessage({ jsonrpc: "2.0", id: "h1", method: "ping" }, "*");
  }
});
</script></body>`

func serve(t *testing.T, host, body string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://%s:%d/", host, ln.Addr().(*net.TCPAddr).Port)
}

func openBase(t *testing.T) *browserhost.Base {
	t.Helper()
	var b browserhost.Base
	if err := b.Open(e2etest.Env(t, 10*time.Second), playwright.BrowserNewContextOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &b
}

// viewFrame waits for the frame whose title is "pinged".
func viewFrame(t *testing.T, page playwright.Page) playwright.Frame {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, f := range page.Frames() {
			if title, err := f.Title(); err == nil && title == "pinged" {
				return f
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, f := range page.Frames() {
		title, _ := f.Title()
		v, err := f.Evaluate(`() => JSON.stringify((window.__mcpconformFrameMessages || (() => "none"))(null))`)
		t.Logf("frame %s %q: %v %v", f.URL(), title, v, err)
	}
	t.Fatal("the View never received the host's ping")
	return nil
}

func methods(ms []browserhost.FrameMessage, from string) []string {
	var out []string
	for _, m := range ms {
		if m.From == from {
			name := m.Method
			if name == "" {
				name = m.Kind
			}
			if len(m.ID) > 0 {
				name += " " + string(m.ID)
			}
			out = append(out, name)
		}
	}
	return out
}

// Every frame records what it receives, each sender named relative to it,
// and the three records around a View say who said what to whom.
func TestFrameMessagesAroundAProxiedView(t *testing.T) {
	proxyURL := serve(t, "localhost", handshakeProxy)
	// "<\/" keeps the View's </script> from ending the host page's script.
	html := strings.ReplaceAll(strconv.Quote(handshakeView), "</", `<\/`)
	hostURL := serve(t, "127.0.0.1", fmt.Sprintf(handshakeHost, proxyURL, html))
	b := openBase(t)
	if _, err := b.Page.Goto(hostURL); err != nil {
		t.Fatal(err)
	}
	m, err := browserhost.FrameMessagesAround(viewFrame(t, b.Page))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Proxy || !strings.HasPrefix(m.ProxyOrigin, "http://localhost:") || !strings.HasPrefix(m.HostOrigin, "http://127.0.0.1:") {
		t.Errorf("proxy %v, host origin %q, proxy origin %q: want a proxy on localhost in a page on 127.0.0.1", m.Proxy, m.HostOrigin, m.ProxyOrigin)
	}
	want := map[string]struct {
		got  []string
		want string
	}{
		"the host from the proxy": {methods(m.Host, "child"), "ui/notifications/sandbox-proxy-ready|ui/initialize 1"},
		"the proxy from the host": {methods(m.ProxyLog, "parent"), `ui/notifications/sandbox-resource-ready|response 1|ping "h1"`},
		"the proxy from the View": {methods(m.ProxyLog, "child"), "ui/initialize 1"},
		"the View from the proxy": {methods(m.View, "parent"), `response 1|ping "h1"`},
		"the View from elsewhere": {methods(m.View, "child"), ""},
		"the host from elsewhere": {methods(m.Host, "other"), ""},
	}
	for what, c := range want {
		if got := strings.Join(c.got, "|"); got != c.want {
			t.Errorf("%s: %q, want %q", what, got, c.want)
		}
	}
	for _, e := range m.ProxyLog {
		if e.Method == "ui/notifications/sandbox-resource-ready" {
			if e.HTMLLength == nil || *e.HTMLLength != len(handshakeView) || len(e.HTMLHash) != 8 {
				t.Errorf("resource-ready html: length %v hash %q, want %d and a hash", e.HTMLLength, e.HTMLHash, len(handshakeView))
			}
		}
	}
}

// A View straight in the page, with no proxy frame between: the page's
// record is the host's, and the answer says there is no proxy.
func TestFrameMessagesAroundAViewWithoutProxy(t *testing.T) {
	page := fmt.Sprintf(`<!doctype html><body><iframe id="v" srcdoc="%s"></iframe><script>
addEventListener("message", (ev) => { if (ev.data.method === "ui/initialize") document.getElementById("v").contentWindow.postMessage({ jsonrpc: "2.0", id: "h1", method: "ping" }, "*"); });
</script></body>`, strings.ReplaceAll(handshakeView, `"`, "&quot;"))
	b := openBase(t)
	if _, err := b.Page.Goto(serve(t, "127.0.0.1", page)); err != nil {
		t.Fatal(err)
	}
	m, err := browserhost.FrameMessagesAround(viewFrame(t, b.Page))
	if err != nil {
		t.Fatal(err)
	}
	if m.Proxy || len(m.ProxyLog) != 0 {
		t.Errorf("proxy %v with %d proxy messages, want none", m.Proxy, len(m.ProxyLog))
	}
	if got := strings.Join(methods(m.Host, "child"), "|"); got != "ui/initialize 1" {
		t.Errorf("the page from the View: %q", got)
	}
	if got := strings.Join(methods(m.View, "parent"), "|"); got != `ping "h1"` {
		t.Errorf("the View from the page: %q", got)
	}
}
