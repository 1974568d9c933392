package reference_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
)

// The page of the variation proofs (variations_e2e_test.go): a reference
// host page with variations switched on, the probe or suite View opened in
// it, its protocol log, JSON-RPC from inside the View, and the assertions
// about missing capabilities the proofs share.

// recordMessages runs in every frame, the View's srcdoc frame included: it
// keeps each message as structured clone delivered it (JSON would drop an
// undefined-valued key).
const recordMessages = `window.__received = []; addEventListener("message", (e) => window.__received.push(e.data), true);`

type varPage struct {
	t    *testing.T
	page playwright.Page
	srv  *reference.Server
}

func variationPage(t *testing.T, ctx context.Context, variations ...string) *varPage {
	t.Helper()
	vs, err := reference.ParseVariations(variations)
	if err != nil {
		t.Fatal(err)
	}
	page, srv := openHostWith(t, ctx, playwright.BrowserNewContextOptions{}, reference.ServerOptions{Variations: vs}, recordMessages)
	return &varPage{t: t, page: page, srv: srv}
}

// openProbeView opens a probe View and waits until it has its tool-input.
func (p *varPage) openProbeView(probe string) {
	p.t.Helper()
	markProbe(probe)
	say(p.t, p.page, fmt.Sprintf(`Please call the tool %s with arguments {"probe":%q,"delayMs":100}`, mcpserver.ToolSlow, probe))
	waitReports(p.t, probe, "tool-input")
}

// openSuiteView asks for the suite and waits for its ui/initialize answer.
func (p *varPage) openSuiteView() {
	p.t.Helper()
	say(p.t, p.page, reference.Prompt)
	p.waitLog("← view", "ui/notifications/initialized")
}

type logEntry struct {
	Dir string
	Msg map[string]any
}

// log is the host page's protocol log, messages parsed.
func (p *varPage) log() []logEntry {
	p.t.Helper()
	v, err := p.page.Evaluate(`() => [...document.querySelectorAll('[data-testid="rpc-log"] li')].map((li) => [li.querySelector(".dir").textContent, li.dataset.message])`)
	if err != nil {
		p.t.Fatal(err)
	}
	var out []logEntry
	for _, e := range v.([]any) {
		pair := e.([]any)
		var m map[string]any
		if json.Unmarshal([]byte(pair[1].(string)), &m) != nil {
			m = map[string]any{"text": pair[1]}
		}
		out = append(out, logEntry{Dir: pair[0].(string), Msg: m})
	}
	return out
}

// sent are the host's messages to Views with that method.
func (p *varPage) sent(method string) []map[string]any {
	var out []map[string]any
	for _, e := range p.log() {
		if e.Dir == "→ view" && e.Msg["method"] == method {
			out = append(out, e.Msg)
		}
	}
	return out
}

func (p *varPage) hostLog() string {
	var b strings.Builder
	for _, e := range p.log() {
		if e.Dir == "host" {
			fmt.Fprintln(&b, e.Msg["text"])
		}
	}
	return b.String()
}

func (p *varPage) waitLog(dir, method string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range p.log() {
			if e.Dir == dir && e.Msg["method"] == method {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("no %s %s in the log", dir, method)
}

// initResult is the host's answer to the (last) ui/initialize.
func (p *varPage) initResult() map[string]any {
	p.t.Helper()
	var initID any
	var res map[string]any
	for _, e := range p.log() {
		switch {
		case e.Dir == "← view" && e.Msg["method"] == "ui/initialize":
			initID = e.Msg["id"]
		case e.Dir == "→ view" && initID != nil && e.Msg["id"] == initID && e.Msg["result"] != nil:
			res = e.Msg["result"].(map[string]any)
		}
	}
	if res == nil {
		p.t.Fatal("no ui/initialize answer in the log")
	}
	return res
}

// view is the newest View's frame (the proxy's inner frame).
func (p *varPage) view() playwright.Frame {
	p.t.Helper()
	var v playwright.Frame
	for _, f := range p.page.Frames() {
		if f.ParentFrame() != nil && f.ParentFrame().ParentFrame() == p.page.MainFrame() {
			v = f
		}
	}
	if v == nil {
		p.t.Fatal("no View frame")
	}
	return v
}

func (p *varPage) proxy() playwright.Frame { return p.view().ParentFrame() }

// rpc sends a JSON-RPC message from inside the View and returns the answer
// to it (nil for a notification, or when none came within 5 s).
// downloadFile asks the host to download one text file named by uri,
// confirms its dialog and returns the answer.
func (p *varPage) downloadFile(uri string) map[string]any {
	p.t.Helper()
	return p.rpcConfirmed("download", "ui/download-file", map[string]any{"contents": []any{map[string]any{"type": "resource", "resource": map[string]any{"uri": uri, "mimeType": "text/plain", "text": "x"}}}})
}

// rpcConfirmed sends a request from the View, confirms the host's dialog
// of that kind as the user and returns the answer.
func (p *varPage) rpcConfirmed(dialog, method string, params any) map[string]any {
	p.t.Helper()
	done := p.rpcAsync(method, params)
	// A hang guard, not a speed limit: 5 s once ran out on a loaded CI
	// machine before the host page drew the dialog.
	ms := 30000.0
	if err := p.page.Locator(fmt.Sprintf(`[data-testid="dialog-%s"] [data-testid="dialog-confirm"]`, dialog)).Click(playwright.LocatorClickOptions{Timeout: &ms}); err != nil {
		p.t.Fatalf("%s: no %s dialog: %v", method, dialog, err)
	}
	return p.answer(method, done)
}

// rpcAnswer is what a request sent by rpcAsync got: the View's answer
// (nil after the page's 30 s hang guard), or why none could be read.
type rpcAnswer struct {
	msg map[string]any
	err error
}

// rpcAsync sends a request from the View in a goroutine of its own, for a
// test that acts on the page (answers a question) before the host answers.
// The goroutine never fails the test (t.Fatal there would leave the test's
// receive waiting forever: seen under -count=2, a 10-minute stall); the
// test reads the answer with answer.
func (p *varPage) rpcAsync(method string, params any) <-chan rpcAnswer {
	done := make(chan rpcAnswer, 1)
	go func() {
		m, err := p.send(method, params, false)
		done <- rpcAnswer{m, err}
	}()
	return done
}

// answer waits for rpcAsync's answer: the page's own guard answers within
// 30 s, so a longer wait means the evaluation itself is stuck.
func (p *varPage) answer(method string, done <-chan rpcAnswer) map[string]any {
	p.t.Helper()
	a := testwait.Recv(p.t, done, 45*time.Second, method+" from the View: no answer and no error within 45 s (the page's own guard is 30 s)")
	if a.err != nil {
		p.t.Fatalf("%s from the View: %v", method, a.err)
	}
	return a.msg
}

func (p *varPage) rpc(method string, params any, notification bool) map[string]any {
	p.t.Helper()
	m, err := p.send(method, params, notification)
	if err != nil {
		p.t.Fatal(err)
	}
	return m
}

// send is rpc without the test: safe in any goroutine.
func (p *varPage) send(method string, params any, notification bool) (map[string]any, error) {
	v, err := p.view().Evaluate(`([method, params, notification]) => new Promise((resolve) => {
		const id = "variation-probe-" + Math.random();
		const msg = notification ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", id, method, params };
		if (notification) { parent.postMessage(msg, "*"); return resolve(null); }
		const timer = setTimeout(() => resolve(null), 30000); // a hang guard
		addEventListener("message", function l(e) {
			if (e.data && e.data.id === id) { removeEventListener("message", l); clearTimeout(timer); resolve(e.data); }
		});
		parent.postMessage(msg, "*");
	})`, []any{method, params, notification})
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	switch c := e["code"].(type) {
	case int:
		return c
	case float64:
		return int(c)
	}
	return 0
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (p *varPage) toggleTheme() {
	p.t.Helper()
	if err := p.page.Locator(`[data-testid="theme-toggle"]`).Click(); err != nil {
		p.t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
}

// sandboxCSP fetches the proxy document as the host page would and returns
// its Content-Security-Policy header and body.
func sandboxCSP(t *testing.T, srv *reference.Server) (string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.SandboxURL+"/sandbox", nil)
	req.Header.Set("Referer", srv.HostURL+"/")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.Header.Get("Content-Security-Policy"), string(b)
}

var methodsOfCapability = map[string][][2]string{
	"message":            {{"ui/message", `{"role":"user","content":[{"type":"text","text":"variation probe"}]}`}},
	"updateModelContext": {{"ui/update-model-context", `{"content":[{"type":"text","text":"x"}]}`}},
	"openLinks":          {{"ui/open-link", `{"url":"https://example.com/"}`}},
	"downloadFile":       {{"ui/download-file", `{"contents":[{"type":"resource","resource":{"uri":"file:///x.txt","text":"x"}}]}`}},
	"sampling":           {{"sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":5}`}},
	"serverResources":    {{"resources/read", `{"uri":"ui://x"}`}, {"resources/list", `{}`}},
}

// The capabilities missing, each method of theirs answering -32601, and
// logging (a notification) ignored.
func assertCapabilitiesMissing(t *testing.T, p *varPage, missing ...string) {
	caps := p.initResult()["hostCapabilities"].(map[string]any)
	for _, c := range []string{"message", "updateModelContext", "openLinks", "downloadFile", "logging", "sampling", "serverResources"} {
		gone := slices.Contains(missing, c)
		if _, has := caps[c]; has == gone {
			t.Errorf("hostCapabilities %v: %s present=%v", keys(caps), c, has)
		}
		for _, m := range methodsOfCapability[c] {
			var params any
			json.Unmarshal([]byte(m[1]), &params)
			if gone {
				if r := p.rpc(m[0], params, false); errCode(r) != -32601 {
					t.Errorf("%s without %s answered %v, want -32601", m[0], c, r)
				}
			}
		}
	}
	if slices.Contains(missing, "logging") {
		p.rpc("notifications/message", map[string]any{"level": "info", "data": "variation-log-line"}, true)
		time.Sleep(300 * time.Millisecond)
		if strings.Contains(p.hostLog(), "variation-log-line") {
			t.Error("a log message was accepted without the logging capability")
		}
	}
}

// hostPage is the reference host's page (unansweredWhileAsking's page for a
// question asked on it).
func (p *varPage) hostPage() playwright.Page { return p.page }
