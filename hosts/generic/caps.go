package generic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// A profile host has the method of every capability (a test holds it to
// the capability table), and Supports (hosts.CapabilitySet) says which of them its
// profile configures: hosts.Supports and hosts.Dispatch ask it first, so
// an unconfigured capability is absent for the runner and the reports and
// is answered "unsupported" without its method being called.

// Supports reports whether the profile gives the host capability k.
func (h *Host) Supports(k protocol.Kind) bool { return h.cfg.caps[k] }

// ClickTrigger clicks the suite's trigger button for real. Other Views
// (a host may show several apps) can have scrolled the suite's iframe out
// of view: it is scrolled back first, and a click lost to a layout shift
// is retried.
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ClickInView(ctx)
}

// ConfirmDialog confirms the host's dialog of that kind: reports a native
// confirm() accepted as it appeared (CONFIRM=native), or clicks the
// profile's confirm button once it is visible.
func (h *Host) ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if !h.cfg.dialogs[req.Dialog] {
		r := protocol.Unsupported(req.Kind)
		r.Error += fmt.Sprintf(" (%s does not list %s: the host does not ask before it)", h.variable("DIALOGS"), req.Dialog)
		return r, nil
	}
	if h.cfg.confirm != ConfirmNative {
		sel := expand(h.cfg.confirm, map[string]string{PhDialog: string(req.Dialog)})
		if err := h.clickInAnyPage(ctx, sel, 5*time.Second); err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("no %s dialog appeared (%s %q): %s", req.Dialog, h.variable("CONFIRM"), sel, browserhost.FirstLine(err))}, nil
		}
		return protocol.Result{OK: true}, nil
	}
	d, ok, err := h.native.Next(ctx, 5*time.Second, func(browserhost.Dialog) bool { return true })
	if err != nil {
		return protocol.Result{}, err
	}
	if !ok {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no %s confirmation (native confirm()) appeared within 5s", req.Dialog)}, nil
	}
	return protocol.Result{OK: true, Value: browserhost.MustJSON(d.Message)}, nil
}

// clickInAnyPage clicks the first visible match of sel in a page of the
// browser context (the suite's first, then the tabs OPEN_TOOL opened,
// newest first: a View there may have asked), once one is visible within
// timeout.
func (h *Host) clickInAnyPage(ctx context.Context, sel string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pages := []playwright.Page{h.Page}
		all := h.Ctx.Pages()
		for i := len(all) - 1; i >= 0; i-- {
			if all[i] != h.Page {
				pages = append(pages, all[i])
			}
		}
		for _, p := range pages {
			loc := p.Locator(sel).First()
			if ok, err := loc.IsVisible(); err == nil && ok {
				return loc.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(3000)})
			}
		}
		if time.Now().After(deadline) {
			// The error the main page gives, for the message.
			return h.ClickWhenVisible(sel, 100*time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ConversationContains waits for the marker in the profile's CONVERSATION.
func (h *Host) ConversationContains(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.TextContains(ctx, h.cfg.conversation, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// MessageRole says whether the conversation shows the marker in one of
// the user's messages (USER_MESSAGES): "user", or "other" (a profile
// tells only the user's messages apart).
func (h *Host) MessageRole(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ReadMessageRole(ctx, h.cfg.conversation, h.cfg.userMessages, "", req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// ToggleTheme switches the host to req.To: by prefers-color-scheme
// (THEME_TOGGLE=emulate), or by clicking THEME_TOGGLE until THEME_ATTR
// reads the wanted theme.
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.toggleTheme(ctx, req.To)
}

// ReadModelToolList asks the Go hook for the model's tool list or, from a
// profile, reads MODEL_TOOLS: the text (or the attribute) of every
// matching element of the host page, waiting up to 5 s for the first.
func (h *Host) ReadModelToolList(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if h.hooks.ModelTools != nil {
		v, err := h.hooks.ModelTools(ctx)
		if err != nil {
			return protocol.Result{}, err
		}
		return protocol.Result{OK: true, Value: v}, nil
	}
	return h.readModelTools(h.Page)
}

// HasAgent answers what the profile's AGENT says: false for "none" (no
// model answers the host's conversation), true for "present".
func (h *Host) HasAgent(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: true, Value: browserhost.MustJSON(h.cfg.agent == AgentPresent)}, nil
}

// KeepsViews answers what the profile's VIEWS says: true for "kept" (every
// View stays open beside later ones; OPEN_TOOL opens them in the suite's
// page), false for "replaced".
func (h *Host) KeepsViews(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: true, Value: browserhost.MustJSON(h.cfg.views == ViewsKept)}, nil
}

// ReadNewSessionToolList asks the Go hook for a new session's tool list
// or, from a profile, runs NEW_SESSION in a new tab of the browser context
// (the same storage: what a host that persisted registrations restores
// from), reads MODEL_TOOLS there and closes the tab. The suite's page and
// its session are left as they are.
func (h *Host) ReadNewSessionToolList(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if h.hooks.NewSessionTools != nil {
		v, err := h.hooks.NewSessionTools(ctx)
		if err != nil {
			return protocol.Result{}, err
		}
		return protocol.Result{OK: true, Value: v}, nil
	}
	tab, err := h.NewTab()
	if err != nil {
		return protocol.Result{}, fmt.Errorf("opening a tab for %s: %w", h.variable("NEW_SESSION"), err)
	}
	defer tab.Close()
	if r, ok := h.runAction(ctx, tab, "NEW_SESSION", h.cfg.newSession, h.withVars()); !ok {
		return r, nil
	}
	return h.readModelTools(tab)
}

// readModelTools reads MODEL_TOOLS in page.
func (h *Host) readModelTools(page playwright.Page) (protocol.Result, error) {
	m := h.cfg.modelTools
	loc := page.Locator(m.sel)
	if err := loc.First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: playwright.Float(5000)}); err != nil {
		// A host may offer the model no tool at all: an empty list.
		if n, cerr := loc.Count(); cerr != nil || n > 0 {
			return protocol.Result{OK: false, Error: fmt.Sprintf("reading %s %q: %s", h.variable("MODEL_TOOLS"), m.sel, browserhost.FirstLine(err))}, nil
		}
		return protocol.Result{OK: true, Value: browserhost.MustJSON([]string{})}, nil
	}
	v, err := loc.EvaluateAll(`(els, attr) => els.map(e => ((attr ? e.getAttribute(attr) : e.textContent) || "").trim()).filter(s => s !== "")`, m.attr)
	if err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("reading %s %q: %s", h.variable("MODEL_TOOLS"), m.sel, browserhost.FirstLine(err))}, nil
	}
	names := []string{}
	if list, ok := v.([]any); ok {
		for _, x := range list {
			names = append(names, fmt.Sprint(x))
		}
	}
	return protocol.Result{OK: true, Value: browserhost.MustJSON(names)}, nil
}

// OpenTool runs OPEN_TOOL with {tool} and {arguments} (compact JSON, {}
// when the request has none), in a new tab of the browser context (the
// previous OPEN_TOOL tab is closed first) or, with OPEN_TOOL_PAGE=same, in
// the page that shows the suite. It returns
// once the steps have run; the suite learns from the fixture server
// whether the View appeared.
func (h *Host) OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	args := "{}"
	if len(req.Arguments) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, req.Arguments); err != nil {
			return protocol.Result{OK: false, Error: "openTool: arguments: " + err.Error()}, nil
		}
		args = b.String()
	}
	vars := h.withVars(PhTool, req.Tool, PhArguments, args)
	page := h.Page
	if !h.cfg.openToolSame {
		// One tool tab at a time: a host may not keep a third connection
		// (the suite's, the last tool's and this one) alive.
		if h.toolTab != nil {
			h.toolTab.Close()
			h.toolTab = nil
		}
		p, err := h.NewTab()
		if err != nil {
			return protocol.Result{}, fmt.Errorf("opening a tab for %s: %w", h.variable("OPEN_TOOL"), err)
		}
		page, h.toolTab = p, p
		if h.cfg.confirm == ConfirmNative {
			// The View in this tab may ask, too.
			h.native.Watch(page, nativePolicy)
		}
	}
	if r, ok := h.runAction(ctx, page, "OPEN_TOOL", h.cfg.openTool, vars); !ok {
		return r, nil
	}
	return protocol.Result{OK: true}, nil
}

// CloseView closes the View that displays req.Marker with CLOSE, in the
// page that shows it: its steps, or a click on the CLOSE match nearest the
// View; after a click it waits up to 10 s for the View's frame to go.
func (h *Host) CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.onView(ctx, req.Marker, "CLOSE", h.cfg.close, func(page playwright.Page, frame, button playwright.ElementHandle) (protocol.Result, error) {
		if err := frame.WaitForElementState("hidden", playwright.ElementHandleWaitForElementStateOptions{Timeout: playwright.Float(10000)}); err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("the View was still shown 10 s after clicking %s: %s", h.variable("CLOSE"), browserhost.FirstLine(err))}, nil
		}
		return protocol.Result{OK: true}, nil
	})
}

// CancelTool stops the tool call whose View displays req.Marker with
// CANCEL, in the page that shows it: its steps, or a click on the CANCEL
// match nearest the View; after a click it waits up to 5 s for that
// control to be hidden or disabled (the call has stopped).
func (h *Host) CancelTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.onView(ctx, req.Marker, "CANCEL", h.cfg.cancel, func(page playwright.Page, frame, button playwright.ElementHandle) (protocol.Result, error) {
		hidden := make(chan error, 2)
		go func() {
			hidden <- button.WaitForElementState("hidden", playwright.ElementHandleWaitForElementStateOptions{Timeout: playwright.Float(5000)})
		}()
		go func() {
			hidden <- button.WaitForElementState("disabled", playwright.ElementHandleWaitForElementStateOptions{Timeout: playwright.Float(5000)})
		}()
		err := <-hidden
		if err != nil {
			err = <-hidden
		}
		if err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("the tool call kept running: %s was still shown and enabled 5 s after the click", h.variable("CANCEL"))}, nil
		}
		return protocol.Result{OK: true}, nil
	})
}

// withVars is the run's placeholders plus kv (name, value, …).
func (h *Host) withVars(kv ...string) map[string]string {
	vars := make(map[string]string, len(h.vars)+len(kv)/2)
	for k, v := range h.vars {
		vars[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		vars[kv[i]] = kv[i+1]
	}
	return vars
}

// runAction runs the steps of variable v in page; a step that fails gives
// ok false and a result naming the variable and step.
func (h *Host) runAction(ctx context.Context, page playwright.Page, v string, steps []Step, vars map[string]string) (r protocol.Result, ok bool) {
	for _, st := range steps {
		t0 := time.Now()
		if err := h.runStep(ctx, page, st, vars); err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("%s step %d (%s): %s", h.variable(v), st.Index, st.Describe(vars), Redact(err.Error()))}, false
		}
		h.logf("%s %s step %d: %s (%s)", h.cfg.name, strings.ToLower(v), st.Index, st.Describe(vars), time.Since(t0).Round(time.Millisecond))
	}
	return protocol.Result{OK: true}, true
}

// onView finds the View that displays marker and runs action a of variable
// v on it: its steps in the View's page, or a click on the a.sel match
// nearest the View's frame, then after(page, the View's frame element in
// the page, the clicked element).
func (h *Host) onView(ctx context.Context, marker, v string, a action, after func(page playwright.Page, frame, button playwright.ElementHandle) (protocol.Result, error)) (protocol.Result, error) {
	page, frame, err := h.viewShowing(marker)
	if err != nil {
		return protocol.Result{}, err
	}
	if page == nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no View displays %q", marker)}, nil
	}
	vars := h.withVars(PhMarker, marker)
	if len(a.steps) > 0 {
		r, _ := h.runAction(ctx, page, v, a.steps, vars)
		return r, nil
	}
	sel := expand(a.sel, vars)
	button, err := nearest(page, sel, frame)
	if err != nil {
		return protocol.Result{}, err
	}
	if button == nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("nothing matches %s %q on the page that shows the View", h.variable(v), sel)}, nil
	}
	if err := button.Click(playwright.ElementHandleClickOptions{Timeout: playwright.Float(3000)}); err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("could not click %s %q: %s", h.variable(v), sel, browserhost.FirstLine(err))}, nil
	}
	return after(page, frame, button)
}

// viewShowing finds, newest page and frame first, a View (a frame other
// than a page's own document and the suite's) whose text contains marker.
// It returns the page and the iframe element of the page's document that
// holds the View (directly or through a sandbox proxy); a nil page when
// none shows it.
func (h *Host) viewShowing(marker string) (playwright.Page, playwright.ElementHandle, error) {
	pages := h.Ctx.Pages()
	for i := len(pages) - 1; i >= 0; i-- {
		p := pages[i]
		frames := p.Frames()
		for j := len(frames) - 1; j >= 0; j-- {
			f := frames[j]
			if f == p.MainFrame() || (h.Suite != nil && f == h.Suite.Frame()) {
				continue
			}
			if n, err := f.GetByText(marker).Count(); err != nil || n == 0 {
				continue
			}
			for f.ParentFrame() != nil && f.ParentFrame() != p.MainFrame() {
				f = f.ParentFrame()
			}
			el, err := f.FrameElement()
			if err != nil {
				continue // detached meanwhile
			}
			return p, el, nil
		}
	}
	return nil, nil, nil
}

// nearest is the element matching sel in page closest to el: the first
// match inside the smallest ancestor of el that holds one (the close
// button on the View's own card, not another View's).
func nearest(page playwright.Page, sel string, el playwright.ElementHandle) (playwright.ElementHandle, error) {
	matches, err := page.Locator(sel).ElementHandles()
	if err != nil {
		return nil, err
	}
	var best playwright.ElementHandle
	bestDepth := -1
	for _, m := range matches {
		v, err := m.Evaluate(`(m, el) => { let a = el, d = 0; for (let x = el; x; x = x.parentElement) d++; while (a && !a.contains(m)) { a = a.parentElement; d--; } return a ? d : -1; }`, el)
		if err != nil {
			continue
		}
		d, _ := v.(int)
		if f, ok := v.(float64); ok {
			d = int(f)
		}
		if d > bestDepth {
			best, bestDepth = m, d
		}
	}
	return best, nil
}

// ResetIsolation closes tabs the tests (and OPEN_TOOL) opened, forgets
// native dialogs and downloads not reported yet, presses Escape and, when
// the profile can switch the theme, restores light. It does not repeat the steps: the suite that asks runs inside the
// app, and showing the app again would end the run.
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.native.Forget()
	h.toolTab = nil // Reset closes it with the other tabs
	if r, err := h.Reset(ctx); err != nil || !r.OK {
		return r, err
	}
	if h.cfg.caps[protocol.KindToggleTheme] {
		return h.toggleTheme(ctx, "light")
	}
	return protocol.Result{OK: true}, nil
}

func (h *Host) toggleTheme(ctx context.Context, to string) (protocol.Result, error) {
	t := h.cfg.theme
	if t.toggle == ThemeEmulate {
		scheme := playwright.ColorSchemeLight
		if to == "dark" {
			scheme = playwright.ColorSchemeDark
		}
		if err := h.Page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
			return protocol.Result{}, err
		}
		if t.attrSel == "" {
			return protocol.Result{OK: true}, nil
		}
		// Condition wait: the host follows the system theme.
		if _, err := h.Page.WaitForFunction(`([sel, attr, to]) => { const e = document.querySelector(sel); return !!e && (e.getAttribute(attr) || "").toLowerCase().includes(to); }`,
			[]any{t.attrSel, t.attrName, to}, playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(5000)}); err != nil {
			cur, _ := h.readTheme()
			return protocol.Result{OK: false, Error: fmt.Sprintf("after emulating prefers-color-scheme: %s, %s reads %q", to, h.variable("THEME_ATTR"), cur)}, nil
		}
		return protocol.Result{OK: true}, nil
	}
	// A toggle may cycle through more than two themes (light, dark, system).
	for i := 0; i < 3; i++ {
		cur, raw := h.readTheme()
		if cur == to {
			return protocol.Result{OK: true}, nil
		}
		if err := h.ClickWhenVisible(t.toggle, 5*time.Second); err != nil {
			return protocol.Result{}, fmt.Errorf("clicking %s %q: %s", h.variable("THEME_TOGGLE"), t.toggle, browserhost.FirstLine(err))
		}
		if _, err := h.Page.WaitForFunction(`([sel, attr, was]) => { const e = document.querySelector(sel); return !!e && e.getAttribute(attr) !== was; }`,
			[]any{t.attrSel, t.attrName, raw}, playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(5000)}); err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("clicking %s did not change %s from %q", h.variable("THEME_TOGGLE"), h.variable("THEME_ATTR"), raw)}, nil
		}
	}
	_, raw := h.readTheme()
	return protocol.Result{OK: false, Error: fmt.Sprintf("the theme toggle did not reach %s (%s reads %q)", to, h.variable("THEME_ATTR"), raw)}, nil
}

// readTheme reads THEME_ATTR: the theme it names ("light", "dark" or "")
// and the raw attribute value.
func (h *Host) readTheme() (theme, raw string) {
	raw, _ = h.Page.Locator(h.cfg.theme.attrSel).First().GetAttribute(h.cfg.theme.attrName, playwright.LocatorGetAttributeOptions{Timeout: playwright.Float(2000)})
	return ThemeOf(raw), raw
}

// ThemeOf names the theme an attribute value stands for: "dark" or
// "light" when the value is, or contains as a word ("theme-dark",
// "app dark-mode"), exactly one of them; "" otherwise.
func ThemeOf(v string) string {
	words := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	dark, light := false, false
	for _, w := range words {
		dark = dark || w == "dark"
		light = light || w == "light"
	}
	switch {
	case dark && !light:
		return "dark"
	case light && !dark:
		return "light"
	}
	return ""
}

// HowToProvide words what would give the profile a capability it lacks
// (hosts.ProvideHinter): the variable to set, named for this profile, or
// "" where the generic table says it better.
func (h *Host) HowToProvide(k protocol.Kind) string {
	c := h.cfg
	switch {
	case c.unsupported[k]:
		return fmt.Sprintf("remove %s from %s", k, h.variable("UNSUPPORTED"))
	case k == protocol.KindConfirmDialog && c.caps[k]:
		// CONFIRM is set; the dialog asked for is not listed.
		return "list the dialog in " + h.variable("DIALOGS") + " if the host asks before it"
	}
	v, ok := strings.CutSuffix(c.why(k), " is not set")
	if !ok {
		return ""
	}
	how := "set " + h.variable(v) + " in the profile"
	if k == protocol.KindConfirmDialog {
		how += " (and list the dialogs the host asks before in " + h.variable("DIALOGS") + ")"
	}
	return how
}
