package generic

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// A profile host has the method of every capability a profile can give
// (kinds), and Supports (hosts.CapabilitySet) says which of them its
// profile configures: hosts.Supports and hosts.Dispatch ask it first, so
// an unconfigured capability is absent for the runner and the reports and
// is answered "unsupported" without its method being called.

// kinds are the capabilities a profile host can have. Other protocol kinds
// are never supported by a profile host.
var kinds = []protocol.Kind{
	protocol.KindClickTrigger, protocol.KindConfirmDialog, protocol.KindCheckLinkOpen,
	protocol.KindConversationContains, protocol.KindToggleTheme, protocol.KindReadModelToolList,
	protocol.KindInspectFrame, protocol.KindReadConsole, protocol.KindResetIsolation,
}

// Supports reports whether the profile gives the host capability k (one
// of kinds).
func (h *Host) Supports(k protocol.Kind) bool { return h.cfg.caps[k] && slices.Contains(kinds, k) }

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
		if err := h.ClickWhenVisible(sel, 5*time.Second); err != nil {
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

// ConversationContains waits for the marker in the profile's CONVERSATION.
func (h *Host) ConversationContains(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.TextContains(ctx, h.cfg.conversation, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// ToggleTheme switches the host to req.To: by prefers-color-scheme
// (THEME_TOGGLE=emulate), or by clicking THEME_TOGGLE until THEME_ATTR
// reads the wanted theme.
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.toggleTheme(ctx, req.To)
}

// ReadModelToolList asks the Go hook for the model's tool list.
func (h *Host) ReadModelToolList(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	v, err := h.hooks.ModelTools(ctx)
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: true, Value: v}, nil
}

// ResetIsolation closes tabs the tests opened, forgets native dialogs,
// presses Escape and, when the profile can switch the theme, restores
// light. It does not repeat the steps: the suite that asks runs inside the
// app, and showing the app again would end the run.
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.native.Forget()
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
