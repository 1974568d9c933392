package reference_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
)

// End-to-end proof that each legal variation does what it says: the host
// page runs with the variation, a probe View (or the suite's View) is
// opened, and the protocol log, the View's own frame and the backend show
// the difference. The specificity pass (selftest) then proves no check
// goes red under it.
func TestVariationsTakeEffect(t *testing.T) {
	// Beside the throttled run of TestVerdictsIndependentOfSpeed, which
	// mostly waits.
	t.Parallel()
	e2etest.Require(t)
	// A guard against a hang, not a speed limit: beside the throttled run,
	// on a loaded CI machine, the 55 subtests took over 5 minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	proven := map[string]bool{}
	run := func(name string, variations []string, f func(t *testing.T, p *varPage)) {
		t.Run(name, func(t *testing.T) {
			f(t, variationPage(t, ctx, variations...))
			if !t.Failed() {
				for _, v := range variations {
					proven[v] = true
				}
			}
		})
	}
	one := func(v string, f func(t *testing.T, p *varPage)) { run(v, []string{v}, f) }

	one("context-minimal", func(t *testing.T, p *varPage) {
		p.openProbeView("var-ctx-min")
		if got := keys(p.initResult()["hostContext"].(map[string]any)); strings.Join(got, ",") != "theme" {
			t.Errorf("hostContext keys %v, want [theme]", got)
		}
		p.toggleTheme()
		ch := p.sent("ui/notifications/host-context-changed")
		if len(ch) == 0 || strings.Join(keys(ch[len(ch)-1]["params"].(map[string]any)), ",") != "theme" {
			t.Errorf("host-context-changed after a theme change: %v, want {theme}", ch)
		}
	})
	one("context-empty", func(t *testing.T, p *varPage) {
		p.openProbeView("var-ctx-empty")
		if got := p.initResult()["hostContext"].(map[string]any); len(got) != 0 {
			t.Errorf("hostContext %v, want {}", got)
		}
		p.toggleTheme()
		if ch := p.sent("ui/notifications/host-context-changed"); len(ch) != 0 {
			t.Errorf("host-context-changed sent: %v", ch)
		}
	})
	one("context-changed-full", func(t *testing.T, p *varPage) {
		p.openProbeView("var-ctx-full")
		p.toggleTheme()
		ch := p.sent("ui/notifications/host-context-changed")
		if len(ch) == 0 {
			t.Fatal("no host-context-changed after a theme change")
		}
		params := ch[len(ch)-1]["params"].(map[string]any)
		full := p.initResult()["hostContext"].(map[string]any)
		if params["theme"] != "dark" || len(params) != len(full) {
			t.Errorf("host-context-changed has %v, want the whole context (%d fields) with theme dark", keys(params), len(full))
		}
	})
	one("wire-v2", func(t *testing.T, p *varPage) {
		p.openProbeView("var-wire-v2")
		p.waitLog("→ view", "ui/list-view-tools")
		if got := p.sent("tools/list"); len(got) != 0 {
			t.Errorf("the host sent tools/list under wire-v2: %v", got)
		}
		p.rpc("ui/log", map[string]any{"level": "info", "data": "wire-v2 log"}, true)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(p.hostLog(), "wire-v2 log") && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(p.hostLog(), "wire-v2 log") {
			t.Errorf("the host did not log the View's ui/log; host log:\n%s", p.hostLog())
		}
	})
	one("app-tools-unsupported", func(t *testing.T, p *varPage) {
		p.openProbeView("var-no-app-tools")
		// The host lists a View's tools as soon as it is initialized, before
		// its tool-input: by the probe's tool-input a listing would be sent.
		waitReports(t, "var-no-app-tools", "tool-result")
		for _, m := range []string{"tools/list", "ui/list-view-tools"} {
			if got := p.sent(m); len(got) != 0 {
				t.Errorf("the host sent %s under app-tools-unsupported: %v", m, got)
			}
		}
	})
	one("app-tools-over-limit-refused", func(t *testing.T, p *varPage) {
		// The many-tools probe View provides 60 tools, over the limit of
		// 50: none reach the model's tool list ...
		markProbe("var-over-limit")
		say(t, p.page, fmt.Sprintf(`Please call the tool %s with arguments {"probe":"var-over-limit"}`, mcpserver.ToolManyTools))
		waitReports(t, "var-over-limit", "tool-input", "tools-listed")
		eventually(t, 10*time.Second, "the host log says it offers none of the app's 60 tools", func() bool {
			return strings.Contains(p.hostLog(), "the app provides 60 tool(s)") && strings.Contains(p.hostLog(), "over the limit of 50, the host offers none")
		})
		appTools := func() []string {
			var out []string
			for _, n := range p.srv.ModelToolNames() {
				if strings.Contains(n, "mcpconform_probe_tool_") {
					out = append(out, n)
				}
			}
			return out
		}
		if got := appTools(); len(got) != 0 {
			t.Errorf("the model's tool list has %d of the over-limit View's tools: %v", len(got), got)
		}
		// ... while a View with one tool still gets it offered.
		p.openProbeView("var-under-limit")
		eventually(t, 10*time.Second, "the one-tool probe View's tool in the model's tool list", func() bool { return len(appTools()) == 1 })
	})
	one("theme-dark-initially", func(t *testing.T, p *varPage) {
		p.openProbeView("var-dark")
		if got := p.initResult()["hostContext"].(map[string]any)["theme"]; got != "dark" {
			t.Errorf("theme %v, want dark", got)
		}
		if cls, _ := p.page.Locator("body").GetAttribute("class"); cls != "theme-dark" {
			t.Errorf("body class %q", cls)
		}
	})
	one("locale-non-english", func(t *testing.T, p *varPage) {
		p.openProbeView("var-locale")
		if got := p.initResult()["hostContext"].(map[string]any)["locale"]; got != "ja-JP" {
			t.Errorf("locale %v, want ja-JP", got)
		}
	})
	one("container-fixed-height", func(t *testing.T, p *varPage) {
		p.openProbeView("var-fixed")
		cd := p.initResult()["hostContext"].(map[string]any)["containerDimensions"].(map[string]any)
		if _, flexible := cd["maxHeight"]; flexible || fmt.Sprint(cd["height"]) != "480" {
			t.Errorf("containerDimensions %v, want a fixed height of 480", cd)
		}
		p.rpc("ui/notifications/size-changed", map[string]any{"width": 300, "height": 1234}, true)
		time.Sleep(300 * time.Millisecond)
		el, err := p.proxy().FrameElement()
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := el.Evaluate(`(f) => f.style.height`, nil); h != "480px" {
			t.Errorf("after size-changed the frame is %v high, want the fixed 480px", h)
		}
	})
	one("container-fixed-width", func(t *testing.T, p *varPage) {
		p.openProbeView("var-fixed-width")
		cd := p.initResult()["hostContext"].(map[string]any)["containerDimensions"].(map[string]any)
		if _, flexible := cd["maxWidth"]; flexible || cd["width"] == nil || cd["maxHeight"] == nil {
			t.Errorf("containerDimensions %v, want a fixed width and a flexible height", cd)
		}
		p.rpc("ui/notifications/size-changed", map[string]any{"width": 300, "height": 360}, true)
		el, err := p.proxy().FrameElement()
		if err != nil {
			t.Fatal(err)
		}
		// The height is applied, the width stays the host's.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if h, _ := el.Evaluate(`(f) => f.style.height`, nil); h == "360px" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("size-changed height 360 was not applied")
			}
		}
		if w, _ := el.Evaluate(`(f) => f.style.width`, nil); w != "" {
			t.Errorf("after size-changed width 300 the frame's width is %q, want the host's own", w)
		}
	})
	one("no-optional-capabilities", func(t *testing.T, p *varPage) {
		p.openProbeView("var-no-caps")
		assertCapabilitiesMissing(t, p, "message", "updateModelContext", "openLinks", "downloadFile", "logging", "sampling", "serverResources")
		if got := keys(p.initResult()["hostCapabilities"].(map[string]any)); strings.Join(got, ",") != "sandbox,serverTools" {
			t.Errorf("hostCapabilities %v, want only sandbox and serverTools", got)
		}
	})
	for v, c := range map[string]string{
		"no-capability-message": "message", "no-capability-update-model-context": "updateModelContext", "no-capability-open-links": "openLinks",
		"no-capability-download-file": "downloadFile", "no-capability-logging": "logging", "no-capability-sampling": "sampling", "no-capability-server-resources": "serverResources",
	} {
		one(v, func(t *testing.T, p *varPage) {
			p.openProbeView("var-" + v)
			assertCapabilitiesMissing(t, p, c)
		})
	}
	one("no-agent", func(t *testing.T, p *varPage) {
		// No agent to ask: the probe is called from the tool picker, as the
		// host driver calls the suite.
		if err := p.page.Locator(`[data-testid="tool-picker"]`).Click(); err != nil {
			t.Fatal(err)
		}
		if err := p.page.Locator(fmt.Sprintf(`[data-testid="tool-option"][data-tool=%q]`, mcpserver.ToolSlow)).Click(); err != nil {
			t.Fatal(err)
		}
		markProbe("var-no-agent")
		if err := p.page.Locator(`[data-testid="tool-args"]`).Fill(`{"probe":"var-no-agent","delayMs":100}`); err != nil {
			t.Fatal(err)
		}
		if err := p.page.Locator(`[data-testid="tool-call"]`).Click(); err != nil {
			t.Fatal(err)
		}
		waitReports(t, "var-no-agent", "tool-input")
		turns := func() int {
			n, _ := p.page.Locator(`[data-testid="conversation"] [data-role="assistant"]`).Count()
			return n
		}
		before := turns()
		if r := p.rpc("ui/message", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "no-agent-marker please reply"}}}, false); r == nil || r["result"] == nil {
			t.Fatalf("ui/message answered %v", r)
		}
		time.Sleep(1500 * time.Millisecond)
		if txt, _ := p.page.Locator(`[data-testid="conversation"] [data-role="user"]`).Last().TextContent(); !strings.Contains(txt, "no-agent-marker") {
			t.Errorf("the message is not in the conversation: last user turn %q", txt)
		}
		say(t, p.page, "Please list your tools")
		time.Sleep(1500 * time.Millisecond)
		if after := turns(); after != before {
			t.Errorf("%d assistant turn(s) appeared after ui/message and a user message, want none", after-before)
		}
	})
	one("no-open-tool", func(t *testing.T, p *varPage) {
		// A matter of the driver, not of the page: the host offers no
		// openTool, and a request for it is answered unsupported without
		// touching the page (the suite then asks the agent).
		p.openProbeView("var-no-open-tool")
		h := reference.NewWith(nil, reference.VariationSet{"no-open-tool": true})
		if hosts.Supports(h, protocol.KindOpenTool) || !hosts.Supports(reference.New(), protocol.KindOpenTool) {
			t.Errorf("openTool supported with no-open-tool: %v, without: %v; want false, true", hosts.Supports(h, protocol.KindOpenTool), hosts.Supports(reference.New(), protocol.KindOpenTool))
		}
		markProbe("var-no-open-tool-2")
		r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindOpenTool, Tool: mcpserver.ToolSlow, Arguments: []byte(`{"probe":"var-no-open-tool-2"}`)})
		if !r.Unsupported {
			t.Errorf("openTool under no-open-tool answered %+v, want unsupported", r)
		}
		if n, _ := p.page.Locator(`[data-testid="app-card"]`).Count(); n != 1 {
			t.Errorf("%d app cards, want only the probe's", n)
		}
	})
	one("model-tool-list-unread", func(t *testing.T, p *varPage) {
		// A matter of the driver, as no-open-tool: readModelToolList is
		// answered unsupported, and the tool picker stays
		// (TestAppToolHiddenThroughTheAgent runs the check's agent path).
		h := reference.NewWith(nil, reference.VariationSet{"model-tool-list-unread": true})
		if hosts.Supports(h, protocol.KindReadModelToolList) || !hosts.Supports(h, protocol.KindOpenTool) || !hosts.Supports(reference.New(), protocol.KindReadModelToolList) {
			t.Errorf("under model-tool-list-unread readModelToolList is supported: %v (want false), openTool: %v (want true); without it readModelToolList: %v (want true)",
				hosts.Supports(h, protocol.KindReadModelToolList), hosts.Supports(h, protocol.KindOpenTool), hosts.Supports(reference.New(), protocol.KindReadModelToolList))
		}
		if r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindReadModelToolList}); !r.Unsupported {
			t.Errorf("readModelToolList under model-tool-list-unread answered %+v, want unsupported", r)
		}
	})
	one("payload-undefined-keys", func(t *testing.T, p *varPage) {
		p.openProbeView("var-undef")
		waitReports(t, "var-undef", "tool-result")
		// The proxy receives the host's messages by structured clone and
		// passes them on the same way; its record (an init script runs
		// reliably in its document, not in the View's srcdoc) shows what
		// the View got.
		v, err := p.proxy().Evaluate(`() => window.__received.filter((m) => m && (m.method === "ui/notifications/tool-input" ? "unsetByHost" in m.params.arguments && m.params.arguments.unsetByHost === undefined : m.method === "ui/notifications/tool-result" && "unsetByHost" in m.params && m.params.unsetByHost === undefined)).map((m) => m.method)`)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(v); got != "[ui/notifications/tool-input ui/notifications/tool-result]" {
			t.Errorf("messages with an undefined-valued key: %s", got)
		}
	})
	one("payload-extra-keys", func(t *testing.T, p *varPage) {
		p.openProbeView("var-extra")
		if _, ok := p.initResult()["hostContext"].(map[string]any)["x-reference-extra"]; !ok {
			t.Error("no extra hostContext key")
		}
		in := p.sent("ui/notifications/tool-input")
		if len(in) != 1 {
			t.Fatalf("tool-input sent %d times", len(in))
		}
		params := in[0]["params"].(map[string]any)
		if _, ok := params["x-reference-extra"]; !ok {
			t.Errorf("no extra key in tool-input params: %v", params)
		}
		if _, ok := params["arguments"].(map[string]any)["x-reference-extra"]; ok {
			t.Error("the extra key went into the arguments (that is the tool-input-extra-args defect)")
		}
	})
	one("payload-meta-on-notifications", func(t *testing.T, p *varPage) {
		p.openProbeView("var-meta")
		n := 0
		for _, e := range p.log() {
			if _, isReq := e.Msg["id"]; e.Dir != "→ view" || isReq {
				continue
			}
			n++
			params, _ := e.Msg["params"].(map[string]any)
			meta, _ := params["_meta"].(map[string]any)
			if _, ok := meta["io.mcpconform.reference/sent"]; !ok {
				t.Errorf("notification without _meta: %v", e.Msg)
			}
		}
		if n < 2 {
			t.Errorf("only %d notifications to the View", n)
		}
	})
	one("csp-meta", func(t *testing.T, p *varPage) {
		header, _ := sandboxCSP(t, p.srv)
		if !strings.HasPrefix(header, "frame-ancestors ") || strings.Contains(header, "default-src") {
			t.Errorf("proxy header %q, want only frame-ancestors", header)
		}
		p.openProbeView("var-csp-meta")
		v, err := p.view().Evaluate(`() => { const m = document.querySelector('head > meta[http-equiv="Content-Security-Policy"]'); return m ? m.content : ""; }`)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := v.(string); !strings.HasPrefix(s, "default-src 'none'") || !strings.Contains(s, "object-src 'none'") {
			t.Errorf("the View's <meta> CSP is %q", s)
		}
		// The policy is enforced: a connection the default forbids fails.
		v, err = p.view().Evaluate(`() => fetch("` + p.srv.HostURL + `/api/tools").then(() => "connected", () => "blocked")`)
		if err != nil || v != "blocked" {
			t.Errorf("a fetch under the <meta> CSP: %v %v", v, err)
		}
	})
	one("csp-stricter", func(t *testing.T, p *varPage) {
		header, _ := sandboxCSP(t, p.srv)
		for _, d := range []string{"form-action 'none'", "worker-src 'none'", "manifest-src 'none'", "media-src data:", "img-src 'none'", "default-src 'none'", "object-src 'none'"} {
			if !strings.Contains(header, d) {
				t.Errorf("proxy CSP %q lacks %s", header, d)
			}
		}
	})
	one("view-same-origin", func(t *testing.T, p *varPage) {
		p.openProbeView("var-same-origin")
		v, err := p.proxy().Evaluate(`() => document.querySelector("iframe").getAttribute("sandbox")`)
		if err != nil || !strings.Contains(fmt.Sprint(v), "allow-same-origin") {
			t.Errorf("inner iframe sandbox %v (%v), want allow-same-origin", v, err)
		}
		if o, _ := p.view().Evaluate(`() => origin`); o != p.srv.SandboxURL {
			t.Errorf("View origin %v, want the sandbox's %s", o, p.srv.SandboxURL)
		}
	})
	one("no-permissions-allow", func(t *testing.T, p *varPage) {
		p.openSuiteView()
		if !strings.Contains(p.hostLog(), "permissions: none") {
			t.Errorf("host log does not say permissions: none:\n%s", p.hostLog())
		}
		for _, f := range []playwright.Frame{p.proxy(), p.view()} {
			el, err := f.FrameElement()
			if err != nil {
				t.Fatal(err)
			}
			if a, _ := el.GetAttribute("allow"); a != "" {
				t.Errorf("iframe allow=%q", a)
			}
		}
	})
	one("no-context-changed-on-theme", func(t *testing.T, p *varPage) {
		p.openProbeView("var-no-theme")
		p.toggleTheme()
		for _, m := range p.sent("ui/notifications/host-context-changed") {
			if _, ok := m["params"].(map[string]any)["theme"]; ok {
				t.Errorf("theme announced: %v", m)
			}
		}
	})
	for v, want := range map[string]string{"display-modes-inline-only": "[inline]", "display-modes-absent": "<nil>"} {
		one(v, func(t *testing.T, p *varPage) {
			p.openProbeView("var-" + v)
			if got := fmt.Sprint(p.initResult()["hostContext"].(map[string]any)["availableDisplayModes"]); got != want {
				t.Errorf("availableDisplayModes %s, want %s", got, want)
			}
			r := p.rpc("ui/request-display-mode", map[string]any{"mode": "fullscreen"}, false)
			if res, _ := r["result"].(map[string]any); res["mode"] != "inline" {
				t.Errorf("fullscreen request answered %v, want the current mode inline", r)
			}
		})
	}
	one("display-needs-gesture", func(t *testing.T, p *varPage) {
		// The suite's View, which declares fullscreen (a probe View
		// declares inline only).
		p.openSuiteView()
		// The user's last click was the host page's Send: refused.
		r := p.rpc("ui/request-display-mode", map[string]any{"mode": "fullscreen"}, false)
		if res, _ := r["result"].(map[string]any); res["mode"] != "inline" {
			t.Errorf("fullscreen request without a click in the View answered %v, want the current mode inline", r)
		}
		// A click into the View: granted.
		if err := p.view().Locator("body").Click(); err != nil {
			t.Fatal(err)
		}
		r = p.rpc("ui/request-display-mode", map[string]any{"mode": "fullscreen"}, false)
		if res, _ := r["result"].(map[string]any); res["mode"] != "fullscreen" {
			t.Errorf("fullscreen request after a click in the View answered %v, want fullscreen", r)
		}
	})
	for v, want := range map[string]int{"tool-input-partial-none": 0, "tool-input-partial-once": 1, "tool-input-partial-many": 6} {
		one(v, func(t *testing.T, p *varPage) {
			p.openProbeView("var-" + v)
			n := 0
			for _, e := range p.log() {
				if e.Dir != "→ view" {
					continue
				}
				if e.Msg["method"] == "ui/notifications/tool-input" {
					break
				}
				if e.Msg["method"] == "ui/notifications/tool-input-partial" {
					n++
				}
			}
			if n != want || len(p.sent("ui/notifications/tool-input-partial")) != want {
				t.Errorf("%d tool-input-partial before tool-input, want %d", n, want)
			}
		})
	}
	one("errors-32000", func(t *testing.T, p *varPage) {
		p.openProbeView("var-32000")
		if r := p.rpc("ui/open-link", map[string]any{}, false); errCode(r) != -32000 {
			t.Errorf("ui/open-link without url answered %v, want -32000", r)
		}
		if r := p.rpc("ui/request-display-mode", map[string]any{"mode": "bogus"}, false); errCode(r) != -32000 {
			t.Errorf("a bad display mode answered %v, want -32000", r)
		}
		if r := p.rpc("no/such-method", map[string]any{}, false); errCode(r) != -32601 {
			t.Errorf("an unknown method answered %v, want -32601 still", r)
		}
	})
	one("open-link-refused", func(t *testing.T, p *varPage) {
		p.openProbeView("var-link-refused")
		r := p.rpc("ui/open-link", map[string]any{"url": "https://example.com/variation"}, false)
		if res, _ := r["result"].(map[string]any); res["isError"] != true {
			t.Errorf("ui/open-link answered %v, want {isError:true}", r)
		}
		if n, _ := p.page.Locator(`[data-testid="dialog-open-link"]`).Count(); n != 0 || len(p.page.Context().Pages()) != 1 {
			t.Errorf("a dialog (%d) or a tab (%d pages) opened", n, len(p.page.Context().Pages()))
		}
	})
	one("server-initialize-probes", func(t *testing.T, p *varPage) {
		var mine []mcpserver.InitializeObservation
		for _, o := range fixtureSet().MainServer.Observations().Initializes {
			if o.ClientName == "mcpconform-reference-host" {
				mine = append(mine, o)
			}
		}
		if len(mine) < 3 {
			t.Fatalf("%d initializes recorded", len(mine))
		}
		last := mine[len(mine)-3:]
		if string(last[0].Capabilities) != "{}" {
			t.Errorf("the first probe initialize had capabilities %s, want {}", last[0].Capabilities)
		}
		for _, o := range last[1:] {
			if _, ok := o.UIMIMETypes(); !ok {
				t.Errorf("initialize %s did not advertise the extension: %s", o.SessionID, o.Capabilities)
			}
		}
		if last[0].SessionID == last[2].SessionID || last[1].SessionID == last[2].SessionID {
			t.Error("the probe sessions are the real session")
		}
	})
	one("request-teardown-ignored", func(t *testing.T, p *varPage) {
		p.openProbeView("var-rt-ignored")
		p.rpc("ui/notifications/request-teardown", map[string]any{}, true)
		// The host has handled the request once it logs so (the View's
		// post returns before the message reaches the host); what it must
		// not do then is given a second to show.
		eventually(t, 10*time.Second, "the host did not log that it ignored the request", func() bool {
			return strings.Contains(p.hostLog(), "ignored the app's request to be closed")
		})
		time.Sleep(1 * time.Second)
		if len(p.sent("ui/resource-teardown")) != 0 {
			t.Error("ui/resource-teardown sent")
		}
		if n, _ := p.page.Locator(`[data-testid="app-card"]`).Count(); n != 1 {
			t.Errorf("%d app cards, want the View still shown", n)
		}
	})
	one("slow-host", func(t *testing.T, p *varPage) {
		p.openProbeView("var-slow")
		// The View times its own ping: the answer cannot come sooner than
		// the host's delay (400 ms, SLOW_HOST_MS in web/view.ts), however
		// loaded the machine.
		v, err := p.view().Evaluate(`() => new Promise((resolve) => {
			const id = "slow-" + Math.random();
			const t0 = performance.now();
			addEventListener("message", function l(e) {
				if (e.data && e.data.id === id) { removeEventListener("message", l); resolve(performance.now() - t0); }
			});
			parent.postMessage({ jsonrpc: "2.0", id, method: "ping", params: {} }, "*");
		})`)
		// A whole number of milliseconds comes back as an int.
		ms, ok := v.(float64)
		if n, isInt := v.(int); isInt {
			ms, ok = float64(n), true
		}
		if err != nil || !ok || ms < 400 {
			t.Errorf("ping round trip %v (%v), want at least 400 ms", v, err)
		}
		// Late, but in order: the View received the host's notifications
		// in the order the host's log shows it sent them.
		var sent []string
		for _, e := range p.log() {
			if m, _ := e.Msg["method"].(string); e.Dir == "→ view" && strings.HasPrefix(m, "ui/notifications/") {
				sent = append(sent, m)
			}
		}
		got, err := p.view().Evaluate(`() => window.__received.filter((m) => m && m.jsonrpc === "2.0" && typeof m.method === "string" && m.method.startsWith("ui/notifications/") && !("id" in m)).map((m) => m.method)`)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(sent) || len(sent) < 2 {
			t.Errorf("the View received %v, the host sent %v: want the same, in order", got, sent)
		}
	})
	one("rerender-once", func(t *testing.T, p *varPage) {
		p.openProbeView("var-rerender")
		deadline := time.Now().Add(10 * time.Second)
		count := func(dir, method string) int {
			n := 0
			for _, e := range p.log() {
				if e.Dir == dir && e.Msg["method"] == method {
					n++
				}
			}
			return n
		}
		for time.Now().Before(deadline) && (count("← view", "ui/initialize") < 2 || count("→ view", "ui/notifications/tool-input") < 2) {
			time.Sleep(100 * time.Millisecond)
		}
		if i, in := count("← view", "ui/initialize"), count("→ view", "ui/notifications/tool-input"); i != 2 || in != 2 {
			t.Errorf("%d ui/initialize and %d tool-input, want 2 of each (one per View instance)", i, in)
		}
		if !strings.Contains(p.hostLog(), "re-rendering the View") {
			t.Error("the host did not log the re-render")
		}
		// The old instance was torn down the graceful way first.
		if n := len(p.sent("ui/resource-teardown")); n != 1 {
			t.Errorf("%d ui/resource-teardown before the re-render, want 1", n)
		}
		// The fresh View is the one shown and it works.
		if r := p.rpc("ping", map[string]any{}, false); r == nil || r["result"] == nil {
			t.Errorf("ping from the fresh View answered %v", r)
		}
	})
	one("message-consent", func(t *testing.T, p *varPage) {
		p.openProbeView("var-consent")
		if r := p.rpcConfirmed("message", "ui/message", map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "consent-marker"}}}); r == nil || r["result"] == nil {
			t.Errorf("ui/message after consent answered %v", r)
		}
		if txt, _ := p.page.Locator(`[data-testid="conversation"]`).TextContent(); !strings.Contains(txt, "consent-marker") {
			t.Error("the message did not reach the conversation after consent")
		}
	})
	one("display-mode-unknown-current", func(t *testing.T, p *varPage) {
		p.openProbeView("var-mode-current")
		for _, params := range []map[string]any{{"mode": "bogus"}, {}} {
			r := p.rpc("ui/request-display-mode", params, false)
			if res, _ := r["result"].(map[string]any); res == nil || res["mode"] != "inline" {
				t.Errorf("ui/request-display-mode %v answered %v, want {mode: inline}", params, r)
			}
		}
		if r := p.rpc("ui/open-link", map[string]any{}, false); errCode(r) != -32602 {
			t.Errorf("ui/open-link without url answered %v, want -32602 still", r)
		}
	})
	one("errors-internal-code", func(t *testing.T, p *varPage) {
		p.openProbeView("var-32603")
		if r := p.rpc("ui/open-link", map[string]any{}, false); errCode(r) != -32603 {
			t.Errorf("ui/open-link without url answered %v, want -32603", r)
		}
		if r := p.rpc("ui/request-display-mode", map[string]any{"mode": "bogus"}, false); errCode(r) != -32603 {
			t.Errorf("a bad display mode answered %v, want -32603", r)
		}
		if r := p.rpc("no/such-method", map[string]any{}, false); errCode(r) != -32601 {
			t.Errorf("an unknown method answered %v, want -32601 still", r)
		}
	})
	one("resources-list-unproxied", func(t *testing.T, p *varPage) {
		p.openProbeView("var-res-list")
		if _, ok := p.initResult()["hostCapabilities"].(map[string]any)["serverResources"]; !ok {
			t.Error("serverResources is not advertised")
		}
		if r := p.rpc("resources/list", map[string]any{}, false); errCode(r) != -32601 {
			t.Errorf("resources/list answered %v, want -32601", r)
		}
		if r := p.rpc("resources/read", map[string]any{"uri": "ui://mcpconform/suite.html"}, false); r["result"] == nil {
			t.Errorf("resources/read answered %v, want the contents", r)
		}
	})
	one("content-images-only", func(t *testing.T, p *varPage) {
		p.openProbeView("var-images")
		caps := p.initResult()["hostCapabilities"].(map[string]any)
		for _, c := range []string{"message", "updateModelContext"} {
			if m, _ := caps[c].(map[string]any); len(m) != 1 || m["image"] == nil {
				t.Errorf("hostCapabilities.%s %v, want {image: {}}", c, caps[c])
			}
		}
		text := []any{map[string]any{"type": "text", "text": "images-only"}}
		if r := p.rpc("ui/message", map[string]any{"role": "user", "content": text}, false); errCode(r) != -32602 {
			t.Errorf("ui/message with text answered %v, want -32602", r)
		}
		if r := p.rpc("ui/update-model-context", map[string]any{"content": text}, false); errCode(r) != -32602 {
			t.Errorf("ui/update-model-context with text answered %v, want -32602", r)
		}
	})
	one("suite-call-cancelled", func(t *testing.T, p *varPage) {
		p.openSuiteView()
		p.waitLog("→ view", "ui/notifications/tool-cancelled")
		c := p.sent("ui/notifications/tool-cancelled")
		if len(c) != 1 || c[0]["params"].(map[string]any)["reason"] != "classifier intervention" {
			t.Errorf("tool-cancelled sent to the suite's View: %v, want one with reason \"classifier intervention\"", c)
		}
		time.Sleep(300 * time.Millisecond)
		if r := p.sent("ui/notifications/tool-result"); len(r) != 0 {
			t.Errorf("tool-result sent to the suite's View after cancelling its call: %v", r)
		}
	})
	one("view-after-result", func(t *testing.T, p *varPage) {
		const probe = "var-after-result"
		markProbe(probe)
		t0 := time.Now()
		say(t, p.page, fmt.Sprintf(`Please call the tool %s with arguments {"probe":%q,"delayMs":1500}`, mcpserver.ToolSlow, probe))
		// While the call runs: its card (with Stop) but no View frame, and
		// the resource already read.
		running := p.page.Locator(`[data-testid="app-card"][data-running="true"]`)
		if err := running.WaitFor(); err != nil {
			t.Fatalf("no card of the running call: %v", err)
		}
		if n, err := running.Locator(`[data-testid="app-frame"]`).Count(); err != nil || n != 0 {
			t.Errorf("the running call's card holds %d View frames (%v), want none until the call ends", n, err)
		}
		if got := reports(probe); slices.Contains(got, "server:completed") || slices.Contains(got, "tool-input") {
			t.Fatalf("reports %v while the card says running, want neither a completed call nor a View's tool-input", got)
		}
		read := false
		for _, r := range fixtureSet().MainServer.Observations().ResourceReads {
			read = read || (strings.HasPrefix(r.URI, "ui://mcpconform/probe") && r.Time.After(t0))
		}
		if !read {
			t.Error("no probe resource read while the call runs: the host should read (prefetch) it when the call starts")
		}
		// Once it ended: the View, its tool-input after the server
		// completed the call, then its tool-result.
		got := waitReports(t, probe, "tool-input", "tool-result")
		if i, j := slices.Index(got, "server:completed"), slices.Index(got, "tool-input"); i < 0 || j < i {
			t.Errorf("reports %v: want the View's tool-input only after server:completed", got)
		}
	})
	one("context-open-fields", func(t *testing.T, p *varPage) {
		p.openProbeView("var-ctx-open")
		ctx := p.initResult()["hostContext"].(map[string]any)
		if modes, _ := ctx["availableDisplayModes"].([]any); !slices.Contains(modes, any("x-reference-sidebar")) {
			t.Errorf("availableDisplayModes %v, want x-reference-sidebar among them", ctx["availableDisplayModes"])
		}
		if d, _ := ctx["deviceCapabilities"].(map[string]any); d == nil || d["keyboard"] != "physical" || d["hover"] != true {
			t.Errorf("deviceCapabilities %v, want touch, hover and keyboard", ctx["deviceCapabilities"])
		}
	})
	one("permissions-granted-unrequested", func(t *testing.T, p *varPage) {
		p.openSuiteView()
		sb, _ := p.initResult()["hostCapabilities"].(map[string]any)["sandbox"].(map[string]any)
		perms, _ := sb["permissions"].(map[string]any)
		if got := strings.Join(keys(perms), ","); got != "camera,clipboardWrite,geolocation,microphone" {
			t.Errorf("hostCapabilities.sandbox.permissions %v, want every permission (the suite resource requests only clipboardWrite)", got)
		}
		el, err := p.view().FrameElement()
		if err != nil {
			t.Fatal(err)
		}
		if a, _ := el.GetAttribute("allow"); !strings.Contains(a, "camera") || !strings.Contains(a, "microphone") {
			t.Errorf("View iframe allow=%q, want camera and microphone granted", a)
		}
		if ok, err := p.view().Evaluate(`() => document.featurePolicy.allowsFeature("camera")`); err != nil || ok != true {
			t.Errorf("the View's permission policy allows camera: %v (%v), want true", ok, err)
		}
	})
	for _, pr := range policyProofs {
		one(pr.name, pr.f)
	}

	// Every variation has its proof (unless -run picked some subtests).
	if strings.Contains(flag.Lookup("test.run").Value.String(), "/") {
		return
	}
	for _, v := range reference.Variations {
		if !proven[v.Name] && !t.Failed() {
			t.Errorf("variation %s has no end-to-end proof here", v.Name)
		}
	}
}
