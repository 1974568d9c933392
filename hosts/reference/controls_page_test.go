package reference_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/reference"
)

// Helpers of the controls tests (controls_test.go): the host page opened
// in Chromium, its protocol log and waits on what the host sent a View.

// controlsPage starts a reference host on the package's fixtures and opens
// its page in a 1280×900 window.
func controlsPage(t *testing.T, ctx context.Context, defects ...string) (playwright.Page, *reference.Server) {
	t.Helper()
	return openHost(t, ctx, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 900}}, defects)
}

// openHost starts a reference host with defects on the package's fixtures
// and opens its page in a fresh browser context made with opts.
func openHost(t *testing.T, ctx context.Context, opts playwright.BrowserNewContextOptions, defects []string) (playwright.Page, *reference.Server) {
	t.Helper()
	set, err := reference.ParseDefects(defects)
	if err != nil {
		t.Fatal(err)
	}
	return openHostWith(t, ctx, opts, reference.ServerOptions{Defects: set}, "")
}

// openHostWith starts a reference host with so (its MCP servers are the
// package's fixtures unless so names others) and opens its page in a
// fresh browser context made with opts, running initScript, when given,
// in every frame first.
func openHostWith(t *testing.T, ctx context.Context, opts playwright.BrowserNewContextOptions, so reference.ServerOptions, initScript string) (playwright.Page, *reference.Server) {
	t.Helper()
	browser, fx := e2e(t)
	if len(so.MCPServers) == 0 {
		so.MCPServers = []string{fx.Main.URL, fx.Second.URL}
	}
	srv, err := reference.NewServer(ctx, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	bctx, err := browser.NewContext(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bctx.Close() })
	if initScript != "" {
		if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(initScript)}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Goto(srv.HostURL + "/"); err != nil {
		t.Fatal(err)
	}
	return page, srv
}

// evalStrings evaluates js, a function of the elements l matches that
// returns strings, and returns them.
func evalStrings(t *testing.T, l playwright.Locator, js string) []string {
	t.Helper()
	v, err := l.EvaluateAll(js)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// rpcEntry is one entry of the page's protocol log.
type rpcEntry struct {
	Dir     string `json:"dir"`  // to-view, from-view, host
	Call    string `json:"call"` // the tool call of the View
	Message string `json:"message"`
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

func rpcLog(t *testing.T, page playwright.Page) []rpcEntry {
	t.Helper()
	v, err := page.Evaluate(`() => [...document.querySelectorAll('[data-testid="rpc-log"] > li')].map((li) => ({ dir: li.dataset.dir ?? "", call: li.dataset.call ?? "", message: li.dataset.message ?? "" }))`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	var out []rpcEntry
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sentTo is every message the host sent the View of call, in order.
func sentTo(t *testing.T, page playwright.Page, call string) []rpcMessage {
	t.Helper()
	var out []rpcMessage
	for _, e := range rpcLog(t, page) {
		if e.Dir != "to-view" || e.Call != call {
			continue
		}
		var m rpcMessage
		if err := json.Unmarshal([]byte(e.Message), &m); err != nil {
			t.Fatalf("a logged message to the View is not JSON (%v): %s", err, e.Message)
		}
		out = append(out, m)
	}
	return out
}

// contextChanges is the params of every host-context-changed the View of
// call got, in order.
func contextChanges(t *testing.T, page playwright.Page, call string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, m := range sentTo(t, page, call) {
		if m.Method == contextChanged {
			out = append(out, m.Params)
		}
	}
	return out
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// poll reports whether cond holds within timeout.
func poll(timeout time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// eventually fails the test unless cond holds within timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !poll(timeout, cond) {
		t.Fatalf("after %s: %s", timeout, what)
	}
}

func rawList(ps []json.RawMessage) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = string(p)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// waitContextChanged waits until the View of call has been sent a
// host-context-changed whose params are exactly want.
func waitContextChanged(t *testing.T, page playwright.Page, call, want string) {
	t.Helper()
	var got []json.RawMessage
	if !poll(10*time.Second, func() bool {
		got = contextChanges(t, page, call)
		return slices.ContainsFunc(got, func(p json.RawMessage) bool { return sameJSON(p, []byte(want)) })
	}) {
		t.Fatalf("the View of call %s got no host-context-changed with params exactly %s; it got %s", call, want, rawList(got))
	}
}

// waitInitialized waits until the View of call sent ui/notifications/initialized.
func waitInitialized(t *testing.T, page playwright.Page, call string) {
	t.Helper()
	eventually(t, 20*time.Second, "the View of call "+call+" never sent ui/notifications/initialized", func() bool {
		for _, e := range rpcLog(t, page) {
			if e.Dir == "from-view" && e.Call == call && strings.Contains(e.Message, `"method":"ui/notifications/initialized"`) {
				return true
			}
		}
		return false
	})
}

// hostContextOf is the hostContext of the ui/initialize result the View of
// call got.
func hostContextOf(t *testing.T, page playwright.Page, call string) map[string]json.RawMessage {
	t.Helper()
	var ctx map[string]json.RawMessage
	eventually(t, 20*time.Second, "the View of call "+call+" got no ui/initialize result", func() bool {
		for _, m := range sentTo(t, page, call) {
			var r struct {
				HostContext map[string]json.RawMessage `json:"hostContext"`
			}
			if len(m.Result) > 0 && json.Unmarshal(m.Result, &r) == nil && r.HostContext != nil {
				ctx = r.HostContext
				return true
			}
		}
		return false
	})
	return ctx
}

// cardCalls is the tool call ids of the app cards, in page order.
func cardCalls(t *testing.T, page playwright.Page) []string {
	t.Helper()
	return evalStrings(t, page.Locator(`[data-testid="app-card"]`), `(cards) => cards.map((c) => c.dataset.call)`)
}

func waitAttr(t *testing.T, l playwright.Locator, name, want string) {
	t.Helper()
	var got string
	if !poll(10*time.Second, func() bool {
		ms := 1000.0
		got, _ = l.GetAttribute(name, playwright.LocatorGetAttributeOptions{Timeout: &ms})
		return got == want
	}) {
		t.Fatalf("%s is %q, want %q", name, got, want)
	}
}

// visible waits until l is visible; what names it in the failure.
func visible(t *testing.T, l playwright.Locator, what string) {
	t.Helper()
	ms := 10000.0
	if err := l.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &ms}); err != nil {
		t.Fatalf("%s never became visible: %s", what, firstLine(err))
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func selectValue(t *testing.T, l playwright.Locator, value string) {
	t.Helper()
	if _, err := l.SelectOption(playwright.SelectOptionValues{Values: &[]string{value}}); err != nil {
		t.Fatal(err)
	}
}
