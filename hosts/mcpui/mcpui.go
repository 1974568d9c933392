// Package mcpui drives a minimal MCP Apps host page built on mcp-ui's
// AppRenderer (@mcp-ui/client, pinned to Version; React, on the ext-apps
// AppBridge), the component many real hosts (Goose, LibreChat, Nanobot, …)
// render MCP Apps with, so that `mcpconform run --host mcp-ui` judges
// AppRenderer's host side.
//
// On first use the driver installs @mcp-ui/client with the versions of its
// peers pinned (Also) into the npm cache (internal/npmcache), bundles its
// host page (page/host.tsx) against them with esbuild's Go API, and serves
// the page on one loopback origin and the sandbox proxy (page/sandbox.html,
// the behaviour of the proxy mcp-ui ships) on another. The page connects
// an MCP client to the fixture server over Streamable HTTP (through the
// page's own /mcp, a reverse proxy), calls the suite's tool and renders
// AppRenderer for it as mcp-ui's docs show.
//
// Capabilities, each something the page really does: real clicks, a theme
// toggle (hostContext.theme), new tabs from ui/open-link, the host DOM
// around the View, console lines, openTool (the page renders another
// call's card), closeView (the card's Close: AppRendererHandle.
// teardownResource, then unmount) and cancelTool (the card's Stop: abort
// the call, AppRenderer's toolCancelled). It has no agent, no conversation
// and no dialogs, so conversationContains, readModelToolList and
// confirmDialog are absent and those checks skip.
package mcpui

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

// Options configure the driver; the zero value is what the CLI uses.
type Options struct {
	// Prefix is the npm install prefix (default npmcache.Dir(Spec)).
	Prefix string
	// InstallTimeout bounds the npm install (default 5m).
	InstallTimeout time.Duration
}

// Host drives the mcp-ui AppRenderer host page in a browser.
type Host struct {
	*browserhost.Base
	opts Options
	srv  *servers
	logf func(string, ...any)
}

const (
	selSuiteFrame = `section[data-view="suite"] iframe`
	selTheme      = `button[data-action="theme"]`
	// toolTimeout bounds an openTool until its View's frame is there.
	toolTimeout = 25 * time.Second
)

// init registers the host as --host mcp-ui (hosts/builtin imports it).
func init() { hosts.Register("mcp-ui", func() hosts.Host { return New() }) }

// New returns the driver with default options.
func New() *Host { return NewWithOptions(Options{}) }

// NewWithOptions returns a driver.
func NewWithOptions(o Options) *Host {
	if o.InstallTimeout <= 0 {
		o.InstallTimeout = 5 * time.Minute
	}
	return &Host{Base: &browserhost.Base{AppFrame: []string{selSuiteFrame, "iframe"}}, opts: o}
}

func (h *Host) Name() string { return "mcp-ui" }

// Setup installs (first use) and bundles the page, serves it, opens it on
// the suite's tool and binds to the suite in its View.
func (h *Host) Setup(ctx context.Context, env hosts.Env) (hosts.SuiteBridge, error) {
	h.logf = env.Logf
	if h.logf == nil {
		h.logf = func(string, ...any) {}
	}
	if env.ServerURL == "" {
		return nil, errors.New("no fixture server URL")
	}
	node := ""
	if env.Browser != nil {
		node = env.Browser.Paths.Node
	}
	ictx, cancel := context.WithTimeout(ctx, h.opts.InstallTimeout)
	prefix, err := Install(ictx, h.opts.Prefix, node, h.logf)
	cancel()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	js, err := pageJS(prefix)
	if err != nil {
		return nil, err
	}
	if h.srv, err = startServers(js, env.ServerURL); err != nil {
		return nil, err
	}
	h.logf("mcp-ui %s host page at %s (bundled in %s), sandbox proxy at %s", Version, h.srv.PageURL, time.Since(t0).Round(time.Millisecond), h.srv.SandboxURL)
	// No dialog is part of this host: any is dismissed.
	timeout, err := h.OpenForSetup(env)
	if err != nil {
		return nil, err
	}
	args, _ := json.Marshal(map[string]string{"nonce": randomHex(16)})
	if err := h.load(h.srv.pageFor(mcpserver.ToolSuite, args), timeout); err != nil {
		return nil, err
	}
	if env.UseRelay() {
		return env.AwaitRelay(ctx, timeout)
	}
	return h.Bind(ctx, timeout)
}

// load opens the host page and waits for its MCP connection.
func (h *Host) load(u string, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	if _, err := h.Page.Goto(u, playwright.PageGotoOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("opening the mcp-ui host page: %w", err)
	}
	st := h.Page.Locator(`[data-status="connected"], [data-status="error"]`).First()
	if err := st.WaitFor(playwright.LocatorWaitForOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("the mcp-ui host page did not connect to the fixture server within %s: %w", timeout, err)
	}
	if s, _ := st.GetAttribute("data-status"); s != "connected" {
		txt, _ := st.InnerText()
		return fmt.Errorf("the mcp-ui host page could not connect to the fixture server: %s", txt)
	}
	return nil
}

// Teardown closes the browser context and the two servers.
func (h *Host) Teardown(ctx context.Context) error {
	err := h.Close()
	if h.srv != nil {
		err = errors.Join(err, h.srv.close())
	}
	return err
}

// ClickTrigger clicks the suite's trigger for real (scrolled into view:
// probe cards below can move it).
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ClickInView(ctx)
}

// OpenTool renders another call of the page: the page calls req.Tool with
// req.Arguments itself and shows its AppRenderer in a new card below the
// suite's; the result is OK once the card's View frame is there.
func (h *Host) OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	args := map[string]any{}
	if len(req.Arguments) > 0 {
		if err := json.Unmarshal(req.Arguments, &args); err != nil {
			return protocol.Result{OK: false, Error: "arguments: " + err.Error()}, nil
		}
	}
	v, err := h.Page.Evaluate(`([t, a]) => window.mcpuiHost.call(t, a)`, []any{req.Tool, args})
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

// cardShowing is the card whose View displays marker.
func (h *Host) cardShowing(marker string) (string, error) {
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

// CloseView presses Close on the card whose View displays req.Marker (the
// page sends ui/resource-teardown through AppRendererHandle.teardownResource,
// waits for its answer, then unmounts the card) and waits until the card
// is gone.
func (h *Host) CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	card, err := h.cardShowing(req.Marker)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	return browserhost.ClickUntilGone(h.Page, card+` button[data-action="close"]`, card, "Close", 15*time.Second), nil
}

// CancelTool presses Stop on the card whose View displays req.Marker: the
// page aborts its tools/call and sets AppRenderer's toolCancelled.
func (h *Host) CancelTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	card, err := h.cardShowing(req.Marker)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	// A card above can still change its height (size-changed) while the
	// click is on its way; the page disables Stop once it has stopped the
	// call, so a click lost to a layout shift is tried again.
	stop := h.Page.Locator(card + ` button[data-action="stop"]`)
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		if err := stop.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(3000)}); err != nil {
			last = err
			continue
		}
		if _, last = h.Page.WaitForFunction(`(sel) => document.querySelector(sel)?.disabled === true`, card+` button[data-action="stop"]`,
			playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(2000)}); last == nil {
			return protocol.Result{OK: true}, nil
		}
	}
	return protocol.Result{OK: false, Error: "could not press Stop: " + browserhost.FirstLine(last)}, nil
}

// ToggleTheme clicks the page's theme toggle until <html data-theme> is
// the wanted one (the page passes it to every AppRenderer as
// hostContext.theme).
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return browserhost.ToggleScheme(h.Page, selTheme, "document.documentElement.dataset.theme", req.To)
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
