package reference_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
)

// The host page's user controls: the locale select, the tool picker, the
// display-mode control of an app card and the container resize that
// follows the window. Each test drives the control in Chromium and judges
// from the page's protocol log (what the host sent each View) and the
// fixture server's observations.

const contextChanged = "ui/notifications/host-context-changed"

// The locale select: every initialized View hears the new locale alone
// ({locale}, a partial update), and a View initialized later gets it in
// hostContext.
func TestControlsLocale(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := controlsPage(t, ctx)
	openProbe(t, page, "ctl-locale-a-"+nonce(), 0)
	openProbe(t, page, "ctl-locale-b-"+nonce(), 0)
	calls := cardCalls(t, page)
	if len(calls) != 2 {
		t.Fatalf("%d app cards, want 2", len(calls))
	}
	for _, c := range calls {
		if l := string(hostContextOf(t, page, c)["locale"]); l == `"fr-FR"` || l == "" {
			t.Fatalf("the View of %s started with locale %s; the test needs a known locale other than fr-FR", c, l)
		}
	}
	sel := page.Locator(`[data-testid="locale-select"]`)
	visible(t, sel, "the locale select")
	selectValue(t, sel, "fr-FR")
	for _, c := range calls {
		waitContextChanged(t, page, c, `{"locale":"fr-FR"}`)
	}
	if lang, _ := page.Locator("html").GetAttribute("lang"); lang != "fr-FR" {
		t.Errorf("the page's lang is %q after choosing fr-FR", lang)
	}
	// A View opened now is told fr-FR in ui/initialize, and needs no
	// host-context-changed for it.
	openProbe(t, page, "ctl-locale-c-"+nonce(), 0)
	calls = cardCalls(t, page)
	if len(calls) != 3 {
		t.Fatalf("%d app cards, want 3", len(calls))
	}
	if l := string(hostContextOf(t, page, calls[2])["locale"]); l != `"fr-FR"` {
		t.Errorf("a View initialized after choosing fr-FR got hostContext.locale %s", l)
	}
	// Choosing again reaches all three, each once.
	selectValue(t, sel, "ja-JP")
	for _, c := range calls {
		waitContextChanged(t, page, c, `{"locale":"ja-JP"}`)
	}
	for _, c := range calls {
		n := 0
		for _, p := range contextChanges(t, page, c) {
			if bytes.Contains(p, []byte(`"locale"`)) {
				n++
			}
		}
		if want := map[bool]int{true: 1, false: 2}[c == calls[2]]; n != want {
			t.Errorf("the View of %s got %d locale changes, want %d", c, n, want)
		}
	}
}

// openToolPicker opens the picker and returns the names it lists.
func openToolPicker(t *testing.T, page playwright.Page) []string {
	t.Helper()
	if err := page.Locator(`[data-testid="tool-picker"]`).Click(); err != nil {
		t.Fatal(err)
	}
	options := page.Locator(`[data-testid="tool-picker-panel"] [data-testid="tool-option"]`)
	visible(t, options.First(), "the tool picker's list")
	return evalStrings(t, options, `(os) => os.map((o) => o.dataset.tool)`)
}

func chooseTool(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	if err := page.Locator(fmt.Sprintf(`[data-testid="tool-option"][data-tool=%q]`, name)).Click(); err != nil {
		t.Fatal(err)
	}
	visible(t, page.Locator(`[data-testid="tool-args"]`), "the arguments field of "+name)
}

// sawToolCall reports whether the main fixture server saw a tools/call of
// tool whose arguments contain marker.
func sawToolCall(tool, marker string) bool {
	for _, c := range fixtureSet().MainServer.Observations().ToolCalls {
		if c.Tool == tool && bytes.Contains(c.Arguments, []byte(marker)) {
			return true
		}
	}
	return false
}

// The tool picker lists exactly the tools the model may see, and calling
// one goes the agent's way: the server gets tools/call, a tool with a UI
// resource shows its app card and the View gets the result; a tool without
// one answers in the conversation.
func TestControlsToolPicker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, srv := controlsPage(t, ctx)
	names := openToolPicker(t, page)
	if want := srv.Agent.ModelTools(); !slices.Equal(names, want) {
		t.Errorf("the picker lists %v, the model sees %v", names, want)
	}
	if !slices.Contains(names, mcpserver.ToolSuite) || slices.Contains(names, mcpserver.ToolProbe) {
		t.Fatalf("the picker lists %v: want %s and never the app-only %s", names, mcpserver.ToolSuite, mcpserver.ToolProbe)
	}
	chooseTool(t, page, mcpserver.ToolSuite)
	args := page.Locator(`[data-testid="tool-args"]`)
	if v, _ := args.InputValue(); !strings.Contains(v, `"nonce"`) {
		t.Errorf("the arguments start as %q, want the required nonce filled in from the schema", v)
	}
	n := "ctl-picker-" + nonce()
	if err := args.Fill(fmt.Sprintf(`{"nonce": %q}`, n)); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(`[data-testid="tool-call"]`).Click(); err != nil {
		t.Fatal(err)
	}
	card := page.Locator(fmt.Sprintf(`[data-testid="app-card"][data-tool=%q]`, mcpserver.ToolSuite))
	visible(t, card, "the app card of the call made from the picker")
	if ok, _ := page.Locator(`[data-testid="tool-picker-panel"]`).IsVisible(); ok {
		t.Error("the picker stayed open after the call")
	}
	eventually(t, 15*time.Second, "the fixture server never saw tools/call "+mcpserver.ToolSuite+" with nonce "+n, func() bool { return sawToolCall(mcpserver.ToolSuite, n) })
	call, err := card.GetAttribute("data-call")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the suite's View never got a tool-result with nonce "+n, func() bool {
		for _, m := range sentTo(t, page, call) {
			if m.Method == "ui/notifications/tool-result" && bytes.Contains(m.Params, []byte(n)) {
				return true
			}
		}
		return false
	})

	// A tool without UI answers in the conversation.
	openToolPicker(t, page)
	chooseTool(t, page, mcpserver.ToolModelOnly)
	if err := args.Fill(""); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(`[data-testid="tool-call"]`).Click(); err != nil {
		t.Fatal(err)
	}
	conv := page.Locator(`[data-testid="conversation"]`)
	eventually(t, 15*time.Second, "the conversation never showed model_only_probe's answer", func() bool {
		s, _ := conv.TextContent()
		return strings.Contains(s, "Called model_only_probe: model_only_probe ran")
	})
	if k, _ := page.Locator(`[data-testid="app-card"]`).Count(); k != 1 {
		t.Errorf("%d app cards after calling a tool without UI, want 1", k)
	}
}

// Invalid arguments show an inline error and call nothing; fixing them
// clears it and the call goes through.
func TestControlsToolPickerRejectsInvalidJSON(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := controlsPage(t, ctx)
	openToolPicker(t, page)
	chooseTool(t, page, mcpserver.ToolSuite)
	args := page.Locator(`[data-testid="tool-args"]`)
	errEl := page.Locator(`[data-testid="tool-args-error"]`)
	conv := page.Locator(`[data-testid="conversation"]`)
	bad := "ctl-bad-" + nonce()
	for _, c := range []struct{ text, want string }{
		{fmt.Sprintf(`{"nonce": %q,}`, bad), "Invalid JSON"},
		{fmt.Sprintf(`[%q]`, bad), "must be a JSON object"},
		{fmt.Sprintf(`%q`, bad), "must be a JSON object"},
	} {
		if err := args.Fill(c.text); err != nil {
			t.Fatal(err)
		}
		if ok, _ := errEl.IsVisible(); ok {
			t.Errorf("the error is still shown after editing the arguments to %s", c.text)
		}
		if err := page.Locator(`[data-testid="tool-call"]`).Click(); err != nil {
			t.Fatal(err)
		}
		visible(t, errEl, fmt.Sprintf("an inline error for the arguments %s", c.text))
		if msg, _ := errEl.TextContent(); !strings.Contains(msg, c.want) {
			t.Errorf("arguments %s: error %q, want one saying %q", c.text, msg, c.want)
		}
		if inv, _ := args.GetAttribute("aria-invalid"); inv != "true" {
			t.Errorf("arguments %s: the field is not marked invalid", c.text)
		}
		if ok, _ := page.Locator(`[data-testid="tool-picker-panel"]`).IsVisible(); !ok {
			t.Errorf("arguments %s: the picker closed", c.text)
		}
		// A call would have put a turn in the conversation at once.
		if s, _ := conv.TextContent(); strings.Contains(s, bad) {
			t.Fatalf("arguments %s were sent: the conversation shows %q", c.text, s)
		}
	}
	good := "ctl-good-" + nonce()
	if err := args.Fill(fmt.Sprintf(`{"nonce": %q}`, good)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := errEl.IsVisible(); ok {
		t.Error("the error is still shown after fixing the arguments")
	}
	if err := page.Locator(`[data-testid="tool-call"]`).Click(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "the fixed call never reached the fixture server", func() bool { return sawToolCall(mcpserver.ToolSuite, good) })
	visible(t, page.Locator(`[data-testid="app-card"]`), "the app card of the fixed call")
	if sawToolCall(mcpserver.ToolSuite, bad) {
		t.Error("the fixture server saw a call with the invalid arguments")
	}
	if k, _ := page.Locator(`[data-testid="app-card"]`).Count(); k != 1 {
		t.Errorf("%d app cards, want only the fixed call's", k)
	}
}

// A picker opened again offers no option until its list is fetched again,
// and only the latest opening's answer is shown. An option of the last
// opening left clickable while the fetch was out was replaced under the
// pointer when the answer came: a click whose mousedown and mouseup fell
// either side of the re-render chose nothing (CI17: under load the driver
// chose conformance_slow right after opening, then waited 30 s for an
// arguments field that never came, and lifecycle/tool-cancelled SKIPped).
func TestControlsToolPickerOffersOnlyAFreshList(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := controlsPage(t, ctx)
	openToolPicker(t, page)
	toggle := page.Locator(`[data-testid="tool-picker"]`)
	if err := toggle.Click(); err != nil {
		t.Fatal(err)
	}
	// The page's fetches of the tool list get their answer (already read
	// from the server) only when the test lets each go; letting one go
	// returns once the page has had a few turns to show it.
	if _, err := page.Evaluate(`() => {
		const fetch0 = window.fetch.bind(window);
		window.__held = [];
		window.fetch = (u, o) => new URL(String(u), location.href).pathname !== "/api/tools" ? fetch0(u, o)
			: new Promise((res) => {
				const got = fetch0(u, o).then((r) => r.text());
				window.__held.push(async () => {
					res(new Response(await got, { status: 200, headers: { "content-type": "application/json" } }));
					for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
				});
			});
	}`); err != nil {
		t.Fatal(err)
	}
	held := func() int {
		n, err := page.Evaluate(`() => window.__held.length`)
		if err != nil {
			t.Fatal(err)
		}
		return n.(int)
	}
	release := func(i int) {
		if _, err := page.Evaluate(`(i) => window.__held[i]()`, i); err != nil {
			t.Fatal(err)
		}
	}
	options := page.Locator(`[data-testid="tool-picker-panel"] [data-testid="tool-option"]`)
	count := func() int {
		n, err := options.Count()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Opened, closed and opened again, both fetches out.
	for i := 0; i < 3; i++ {
		if err := toggle.Click(); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 10*time.Second, "the picker never asked for the tool list twice", func() bool { return held() == 2 })
	if n := count(); n != 0 {
		t.Fatalf("while the tool list was being fetched again, the picker offered %d options of its last opening (want none: one clicked now is replaced under the pointer when the list comes)", n)
	}
	if s, _ := page.Locator(`[data-testid="tool-picker-panel"] .tool-status`).TextContent(); !strings.Contains(s, "Loading") {
		t.Errorf("while the tool list was being fetched, the picker said %q, want that it is loading", s)
	}
	// The first opening's answer, late, is not shown: the picker is on its
	// second opening, whose list may be another.
	release(0)
	if n := count(); n != 0 {
		t.Fatalf("an earlier opening's late answer put %d options in the picker while the latest opening's fetch was still out", n)
	}
	release(1)
	visible(t, options.First(), "the tool list of the latest opening")
	chooseTool(t, page, mcpserver.ToolSuite)
}

// openSuite has the agent open the conformance suite's View (it declares
// inline and fullscreen) and waits until it is initialized.
func openSuite(t *testing.T, page playwright.Page) (playwright.Locator, string) {
	t.Helper()
	say(t, page, fmt.Sprintf(`Please call the tool %s with arguments {"nonce":%q}`, mcpserver.ToolSuite, "ctl-mode-"+nonce()))
	card := page.Locator(fmt.Sprintf(`[data-testid="app-card"][data-tool=%q]`, mcpserver.ToolSuite)).Last()
	visible(t, card, "the suite's app card")
	call, err := card.GetAttribute("data-call")
	if err != nil {
		t.Fatal(err)
	}
	waitInitialized(t, page, call)
	return card, call
}

func optionValues(t *testing.T, sel playwright.Locator) []string {
	t.Helper()
	return evalStrings(t, sel.Locator("option"), `(os) => os.map((o) => o.value)`)
}

// The display-mode control offers the modes both the host and the View
// support; choosing one applies the layout and tells the View with a
// partial {displayMode} update. A View that declared only inline gets no
// control.
func TestControlsDisplayMode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := controlsPage(t, ctx)
	card, call := openSuite(t, page)
	sel := card.Locator(`[data-testid="display-mode"]`)
	visible(t, sel, "the card's display-mode control")
	if got := optionValues(t, sel); !slices.Equal(got, []string{"inline", "fullscreen"}) {
		t.Errorf("the control offers %v; the host has inline, fullscreen, pip and the suite declared inline, fullscreen", got)
	}
	selectValue(t, sel, "fullscreen")
	waitAttr(t, card, "data-mode", "fullscreen")
	waitContextChanged(t, page, call, `{"displayMode":"fullscreen"}`)
	// Fullscreen fixes the container's height too; the View hears that
	// alone, after the layout settles.
	var dims json.RawMessage
	eventually(t, 10*time.Second, "no {containerDimensions} update with a fixed height after going fullscreen", func() bool {
		for _, p := range contextChanges(t, page, call) {
			var m map[string]json.RawMessage
			if json.Unmarshal(p, &m) == nil && len(m) == 1 && bytes.Contains(m["containerDimensions"], []byte(`"height"`)) {
				dims = m["containerDimensions"]
				return true
			}
		}
		return false
	})
	if bytes.Contains(dims, []byte("maxHeight")) {
		t.Errorf("fullscreen containerDimensions %s has both height and maxHeight", dims)
	}
	selectValue(t, sel, "inline")
	waitAttr(t, card, "data-mode", "inline")
	waitContextChanged(t, page, call, `{"displayMode":"inline"}`)
	for _, p := range contextChanges(t, page, call) {
		if bytes.Contains(p, []byte(`"displayMode"`)) && !sameJSON(p, []byte(`{"displayMode":"fullscreen"}`)) && !sameJSON(p, []byte(`{"displayMode":"inline"}`)) {
			t.Errorf("a display-mode change carried more than displayMode: %s", p)
		}
	}

	// The probe declared only inline: nothing to offer.
	probe := "ctl-mode-probe-" + nonce()
	openProbe(t, page, probe, 0)
	calls := cardCalls(t, page)
	waitInitialized(t, page, calls[len(calls)-1])
	probeCard := page.Locator(fmt.Sprintf(`[data-testid="app-card"][data-call=%q]`, calls[len(calls)-1]))
	if ok, _ := probeCard.Locator(`[data-testid="display-mode"]`).IsVisible(); ok {
		t.Errorf("the probe View declared only inline and still has a display-mode control offering %v", optionValues(t, probeCard.Locator(`[data-testid="display-mode"]`)))
	}
}

// The control shares the request path's code: with the defect
// no-context-changed-on-display-mode the layout still changes but the View
// is never told.
func TestControlsDisplayModeSharesRequestPath(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := controlsPage(t, ctx, "no-context-changed-on-display-mode")
	card, call := openSuite(t, page)
	sel := card.Locator(`[data-testid="display-mode"]`)
	visible(t, sel, "the card's display-mode control")
	selectValue(t, sel, "fullscreen")
	waitAttr(t, card, "data-mode", "fullscreen")
	// The {containerDimensions} update comes after the settled layout,
	// well after a displayMode update would have been sent.
	eventually(t, 10*time.Second, "no {containerDimensions} update after going fullscreen", func() bool {
		return slices.ContainsFunc(contextChanges(t, page, call), func(p json.RawMessage) bool { return bytes.Contains(p, []byte(`"containerDimensions"`)) })
	})
	for _, p := range contextChanges(t, page, call) {
		if bytes.Contains(p, []byte(`"displayMode"`)) {
			t.Errorf("the defect host announced the display mode after all: %s", p)
		}
	}
}

// Resizing the window changes the card's width: the View hears the new
// containerDimensions alone, once the resize settles, and only when they
// changed.
func TestControlsContainerResize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := controlsPage(t, ctx)
	openProbe(t, page, "ctl-resize-"+nonce(), 0)
	call := cardCalls(t, page)[0]
	waitInitialized(t, page, call)
	// Inline, both axes are flexible: maxWidth is the card's width.
	var initial struct {
		Width     *float64 `json:"maxWidth"`
		MaxHeight *float64 `json:"maxHeight"`
	}
	if err := json.Unmarshal(hostContextOf(t, page, call)["containerDimensions"], &initial); err != nil || initial.Width == nil {
		t.Fatalf("ui/initialize gave no containerDimensions.maxWidth: %v", err)
	}
	frameWidth := func() float64 {
		v, err := page.Locator(fmt.Sprintf(`[data-testid="app-card"][data-call=%q] iframe[data-testid="app-frame"]`, call)).Evaluate(`(f) => Math.round(f.getBoundingClientRect().width)`, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch n := v.(type) {
		case int:
			return float64(n)
		case float64:
			return n
		}
		t.Fatalf("frame width %v", v)
		return 0
	}
	if w := frameWidth(); w != *initial.Width {
		t.Fatalf("ui/initialize said width %v, the frame is %v wide", *initial.Width, w)
	}
	// dimsUpdates are the containerDimensions the View heard, each in a
	// partial update of that field alone.
	dimsUpdates := func() []json.RawMessage {
		var out []json.RawMessage
		for _, p := range contextChanges(t, page, call) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(p, &m); err != nil {
				t.Fatal(err)
			}
			if d, ok := m["containerDimensions"]; ok {
				if len(m) != 1 {
					t.Fatalf("a containerDimensions change carried more: %s", p)
				}
				out = append(out, d)
			}
		}
		return out
	}
	waitDims := func(width float64) {
		t.Helper()
		want := fmt.Sprintf(`{"maxHeight":6000,"maxWidth":%v}`, width)
		var d []json.RawMessage
		if !poll(10*time.Second, func() bool {
			d = dimsUpdates()
			return len(d) > 0 && sameJSON(d[len(d)-1], []byte(want))
		}) {
			t.Fatalf("the View never heard containerDimensions %s; it heard %s", want, rawList(d))
		}
	}
	if err := page.SetViewportSize(1000, 900); err != nil {
		t.Fatal(err)
	}
	var narrow float64
	eventually(t, 10*time.Second, "the card did not get narrower with the window", func() bool { narrow = frameWidth(); return narrow < *initial.Width })
	waitDims(narrow)
	if err := page.SetViewportSize(1280, 900); err != nil {
		t.Fatal(err)
	}
	waitDims(*initial.Width)
	// Height-only resizes leave the width as it is: nothing to tell. Then
	// one more real change; over the whole test the View must have been
	// told only of actual changes.
	for _, h := range []int{860, 820, 900} {
		if err := page.SetViewportSize(1280, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := page.SetViewportSize(1100, 900); err != nil {
		t.Fatal(err)
	}
	var mid float64
	eventually(t, 10*time.Second, "the card did not get narrower with the window", func() bool { mid = frameWidth(); return mid < *initial.Width })
	waitDims(mid)
	updates := dimsUpdates()
	prev := json.RawMessage(fmt.Sprintf(`{"maxHeight":6000,"maxWidth":%v}`, *initial.Width))
	for _, d := range updates {
		if sameJSON(d, prev) {
			t.Errorf("the View was told containerDimensions %s again, unchanged (all: %s)", d, rawList(updates))
		}
		prev = d
	}
}
