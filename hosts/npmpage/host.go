package npmpage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// Options configure a Host; the zero value is what the CLI uses.
type Options struct {
	// Prefix is the npm install prefix (default npmcache.Dir(Def.Spec)).
	Prefix string
	// InstallTimeout bounds the npm install (default 5m).
	InstallTimeout time.Duration
}

// Host drives a Page in a browser: the capabilities every such page has
// (clickTrigger, openTool, closeView, toggleTheme, resetIsolation, and
// browserhost.Base's). A driver embeds *Host and adds what its page has
// beyond them.
type Host struct {
	*browserhost.Base
	Def  *Page
	Opts Options
	Srv  *Servers
	logf func(string, ...any)
}

const (
	selSuiteFrame = `section[data-view="suite"] iframe`
	selTheme      = `button[data-action="theme"]`
	// toolTimeout bounds an openTool until its View's frame is there.
	toolTimeout = 25 * time.Second
)

// NewHost returns the driver of page.
func NewHost(page *Page, o Options) *Host {
	if o.InstallTimeout <= 0 {
		o.InstallTimeout = 5 * time.Minute
	}
	return &Host{Base: &browserhost.Base{AppFrame: []string{selSuiteFrame, "iframe"}}, Def: page, Opts: o}
}

// Name is the page's host name.
func (h *Host) Name() string { return h.Def.Name }

// Setup installs (first use) and bundles the page, serves it, opens it on
// the suite's tool and binds to the suite in its View.
func (h *Host) Setup(ctx context.Context, env hosts.Env) error {
	h.logf = env.Logf
	if h.logf == nil {
		h.logf = func(string, ...any) {}
	}
	if env.ServerURL == "" {
		return errors.New("no fixture server URL")
	}
	node := env.Node
	ictx, cancel := context.WithTimeout(ctx, h.Opts.InstallTimeout)
	prefix, err := h.Def.Install(ictx, h.Opts.Prefix, node, h.logf)
	cancel()
	if err != nil {
		return err
	}
	t0 := time.Now()
	js, err := h.Def.JS(prefix)
	if err != nil {
		return err
	}
	if h.Srv, err = StartServers(h.Def, js, env.ServerURL); err != nil {
		return err
	}
	h.logf("%s %s host page at %s (bundled in %s), sandbox proxy at %s", h.Def.Name, h.Def.Version, h.Srv.PageURL, time.Since(t0).Round(time.Millisecond), h.Srv.SandboxURL)
	// No dialog is part of this host: OpenForSetup dismisses any.
	if err := h.OpenForSetup(env); err != nil {
		return err
	}
	timeout := env.AppTimeout
	args, _ := json.Marshal(map[string]string{"nonce": RandomHex(16)})
	if err := h.load(h.Srv.PageFor(mcpserver.ToolSuite, args), timeout); err != nil {
		return err
	}
	return nil
}

// load opens the host page and waits for its MCP connection.
func (h *Host) load(u string, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	if _, err := h.Page.Goto(u, playwright.PageGotoOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("opening the %s host page: %w", h.Def.Name, err)
	}
	st := h.Page.Locator(`[data-status="connected"], [data-status="error"]`).First()
	if err := st.WaitFor(playwright.LocatorWaitForOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("the %s host page did not connect to the fixture server within %s: %w", h.Def.Name, timeout, err)
	}
	if s, _ := st.GetAttribute("data-status"); s != "connected" {
		txt, _ := st.InnerText()
		return fmt.Errorf("the %s host page could not connect to the fixture server: %s", h.Def.Name, txt)
	}
	return nil
}

// Teardown closes the browser context and the two servers.
func (h *Host) Teardown(ctx context.Context) error {
	err := h.Close()
	if h.Srv != nil {
		err = errors.Join(err, h.Srv.Close())
	}
	return err
}

// ClickTrigger clicks the suite's trigger for real (scrolled into view:
// probe cards below can move it).
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ClickInView(ctx)
}

// OpenTool renders another call of the page: the page calls req.Tool with
// req.Arguments itself and shows its View in a new card below the
// suite's; the result is OK once the card's View frame is there.
func (h *Host) OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	args := map[string]any{}
	if len(req.Arguments) > 0 {
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return protocol.Result{OK: false, Error: "arguments: " + err.Error()}, nil
		}
	}
	v, err := h.Page.Evaluate(`([t, a]) => window.pageHost.call(t, a)`, []any{req.Tool, args})
	if err != nil {
		return protocol.Result{}, fmt.Errorf("rendering a call of %s: %w", req.Tool, err)
	}
	id, _ := v.(string)
	card := `section[data-view="` + id + `"]`
	ms := float64(toolTimeout.Milliseconds())
	either := h.Page.Locator(card + " iframe, " + card + " [data-error]").First()
	if err := either.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: &ms}); err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no View frame for %s within %s", req.Tool, toolTimeout)}, nil
	}
	if n, _ := h.Page.Locator(card + " [data-error]").Count(); n > 0 {
		txt, _ := h.Page.Locator(card + " [data-error]").InnerText()
		return protocol.Result{OK: false, Error: "the host's call of " + req.Tool + " failed: " + txt}, nil
	}
	return protocol.Result{OK: true}, nil
}

// CardShowing is the selector of the card whose View displays marker.
func (h *Host) CardShowing(marker string) (string, error) {
	ids, err := h.Page.Locator("section[data-view]").EvaluateAll(`els => els.map(e => e.dataset.view)`)
	if err != nil {
		return "", err
	}
	list, _ := ids.([]any)
	for _, x := range list {
		id, _ := x.(string)
		card := `section[data-view="` + id + `"]`
		view := h.Page.FrameLocator(card + " iframe").FrameLocator("iframe")
		if n, err := view.GetByText(marker).Count(); err == nil && n > 0 {
			return card, nil
		}
	}
	return "", fmt.Errorf("no View displays %q", marker)
}

// Press clicks a control of the host page itself (Close, the theme
// toggle) with a click event dispatched on it, not a mouse click at its
// coordinates: the Views' iframes change height (size-changed) and the page
// can scroll while a click is on its way (a View focusing an element
// scrolls its iframe into view), and a mouse click at a position checked a
// moment before then lands on another card's button (seen on the AppBridge
// page: a theme toggle that pressed a Close). What the View is clicked with
// stays a real click (ClickTrigger).
func (h *Host) Press(sel string) error {
	return h.Page.Locator(sel).DispatchEvent("click", nil, playwright.LocatorDispatchEventOptions{Timeout: playwright.Float(3000)})
}

// CloseView presses Close on the card whose View displays req.Marker (the
// page sends ui/resource-teardown, waits for its answer, then removes the
// card) and waits until the card is gone.
func (h *Host) CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	card, err := h.CardShowing(req.Marker)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	return browserhost.PressUntilGone(h.Page, func() error { return h.Press(card + ` button[data-action="close"]`) }, card, "Close", 15*time.Second), nil
}

// ToggleTheme presses the page's theme toggle until <html data-theme> is
// the wanted one (the page tells every View).
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return browserhost.PressUntilScheme(h.Page, func() error { return h.Press(selTheme) }, "the page's theme toggle", "document.documentElement.dataset.theme", req.To)
}

// ResetIsolation closes tabs the tests opened, forgets downloads, presses
// Escape and restores the light theme. The suite's card stays (the suite
// that asks runs in it).
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if r, err := h.Reset(ctx); err != nil || !r.OK {
		return r, err
	}
	return h.ToggleTheme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}
