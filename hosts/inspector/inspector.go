// Package inspector drives MCP Inspector v2 (@modelcontextprotocol/inspector,
// pinned to Version), a real MCP Apps host written by others on top of the
// ext-apps AppBridge, so that `mcpconform run --host inspector` runs the suite
// inside it.
//
// By default the driver installs the Inspector with npm into
// ~/.cache/mcpconform/inspector-<Version> on first use and starts its web
// client on free loopback ports with a throwaway HOME and a random API token;
// with MCPCONFORM_INSPECTOR_URL (and MCPCONFORM_INSPECTOR_TOKEN) it attaches
// to one already running. It connects the Inspector to the fixture server
// over Streamable HTTP through the Inspector's own deep link, opens the
// conformance app from the Apps tab with a real click, and binds to the suite
// in the View (host page → sandbox proxy iframe → srcdoc View iframe).
//
// Capabilities, each backed by something the Inspector really does: real
// clicks, its own colour-scheme toggle, the native confirm() it shows before
// ui/download-file, new tabs from ui/open-link, the host DOM around the View,
// console lines, openTool through its deep link in a second tab (so the
// suite's probe Views need no agent) and closeView with its Close button.
// It has no Stop for an app's tool call (cancelTool), and no agent and no
// conversation, so conversationContains and readModelToolList are absent
// and those checks skip.
package inspector

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// Selectors of the Inspector 2.12.0 web client.
const (
	selStatus      = `[data-testid="connection-status"]`
	selOpenApp     = `[data-testid="open-app"]`
	selAppsForm    = `[data-testid="apps-form"]`
	selAppFrame    = `[data-testid="apps-form"] iframe`
	selAppsError   = `[data-testid="apps-error"]`
	selCloseApp    = `[data-testid="apps-form"] button[aria-label="Close"]`
	selThemeToggle = `button[aria-label="Toggle color scheme"]`
	// The colour scheme Mantine applies, on <html>.
	attrScheme = "data-mantine-color-scheme"
	// The prompt of the Inspector's window.confirm before a download.
	downloadPrompt = "wants to download or open"
)

// Options configure the driver; the zero value is what the CLI uses.
type Options struct {
	// Prefix is the npm install prefix (default ~/.cache/mcpconform/inspector-<Version>).
	Prefix string
	// Getenv reads MCPCONFORM_INSPECTOR_URL and _TOKEN (default os.Getenv).
	Getenv func(string) string
	// StartTimeout bounds the Inspector's start until its ports answer
	// (default 60s); InstallTimeout bounds the npm install (default 5m).
	StartTimeout, InstallTimeout time.Duration
}

// Host drives MCP Inspector v2 in a browser page.
type Host struct {
	*browserhost.Base
	browserhost.Downloads // checkDownload: the Inspector saves files from its own page
	opts                  Options
	inst                  *instance
	server                string
	logf                  func(string, ...any)

	native browserhost.Dialogs // native dialogs shown by the host page
	// toolPage is the tab of the last OpenTool (nil when none is open).
	toolPage playwright.Page
}

// init registers the host as --host inspector (hosts/builtin imports it),
// which reads MCPCONFORM_INSPECTOR_URL and _TOKEN from the run's settings.
func init() {
	hosts.Register("inspector", func(p hosts.Params) (hosts.Host, error) {
		if err := p.Unaltered(); err != nil {
			return nil, err
		}
		return NewWithOptions(Options{Getenv: p.Getenv}), nil
	})
}

// New returns the Inspector driver with default options.
func New() *Host { return NewWithOptions(Options{}) }

// NewWithOptions returns an Inspector driver.
func NewWithOptions(o Options) *Host {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Prefix == "" {
		o.Prefix = defaultPrefix()
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.InstallTimeout <= 0 {
		o.InstallTimeout = 5 * time.Minute
	}
	return &Host{
		Base: &browserhost.Base{AppFrame: []string{selAppFrame, "iframe"}},
		opts: o,
	}
}

func (h *Host) Name() string { return "inspector" }

// PID is the process group of the Inspector this driver started (0 when it
// attached to one or has not started one).
func (h *Host) PID() int {
	if h.inst == nil {
		return 0
	}
	return h.inst.proc.PID()
}

// URL is the Inspector's web UI, once Setup has found or started it.
func (h *Host) URL() string {
	if h.inst == nil {
		return ""
	}
	return h.inst.URL
}

// Setup finds or starts the Inspector, connects it to the fixture server,
// opens the conformance app and binds to the suite.
func (h *Host) Setup(ctx context.Context, env hosts.Env) error {
	h.logf = env.Logf
	if h.logf == nil {
		h.logf = func(string, ...any) {}
	}
	if env.ServerURL == "" {
		return errors.New("no fixture server URL")
	}
	h.server = env.ServerURL
	inst, err := h.instance(ctx, env)
	if err != nil {
		return err
	}
	h.inst = inst
	if err := h.Open(env, playwright.BrowserNewContextOptions{AcceptDownloads: playwright.Bool(true)}); err != nil {
		return err
	}
	h.native.Watch(h.Page, dialogPolicy)
	h.WatchDownloads(h.Page)
	timeout := env.AppTimeout
	if err := h.openApp(ctx, timeout); err != nil {
		return err
	}
	return nil
}

func (h *Host) instance(ctx context.Context, env hosts.Env) (*instance, error) {
	if u := h.opts.Getenv(EnvURL); u != "" {
		inst, err := attach(ctx, u, h.opts.Getenv(EnvToken))
		if err != nil {
			return nil, err
		}
		h.logf("using the MCP Inspector at %s (%s)", inst.URL, EnvURL)
		return inst, nil
	}
	node := env.Node
	if node == "" {
		node = "node"
	}
	if !installed(h.opts.Prefix) {
		npm, err := findNPM(node)
		if err != nil {
			return nil, err
		}
		ictx, cancel := context.WithTimeout(ctx, h.opts.InstallTimeout)
		err = install(ictx, npm, h.opts.Prefix, h.logf)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	inst, err := start(ctx, node, h.opts.Prefix, h.opts.StartTimeout)
	if err != nil {
		return nil, err
	}
	h.logf("started MCP Inspector %s at %s (pid %d) in %s", Version, inst.URL, inst.proc.PID(), time.Since(t0).Round(time.Millisecond))
	return inst, nil
}

// appURL is the Inspector's deep link: connect to the server over
// Streamable HTTP, switch to the Apps tab, select the tool and pre-fill its
// form with args (a JSON object).
func (h *Host) appURL(serverURL, tool string, args []byte) string {
	q := url.Values{}
	q.Set("serverUrl", serverURL)
	q.Set("transport", "http")
	q.Set("autoConnect", h.inst.Token)
	q.Set("openApp", tool)
	q.Set("appArgs", base64.RawURLEncoding.EncodeToString(args))
	return h.inst.URL + "/?" + q.Encode()
}

// suiteArgs are the suite tool's arguments: a fresh nonce.
func suiteArgs() []byte {
	b, _ := json.Marshal(map[string]string{"nonce": randomHex(16)})
	return b
}

// openApp loads the deep link of the suite tool in the host page, waits for
// the connection and clicks Open App.
func (h *Host) openApp(ctx context.Context, timeout time.Duration) error {
	return h.openAppIn(h.Page, mcpserver.ToolSuite, suiteArgs(), timeout)
}

// openAppIn loads the deep link of tool with args in page, waits for the
// connection and clicks Open App.
func (h *Host) openAppIn(page playwright.Page, tool string, args []byte, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	if _, err := page.Goto(h.appURL(h.serverURL(), tool, args), playwright.PageGotoOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("opening the Inspector at %s: %w", h.inst.URL, err)
	}
	// Connected, or an error the Inspector shows: whichever comes first.
	if _, err := page.WaitForFunction(`(sel) => {
		const e = document.querySelector(sel);
		if (!e) return false;
		const s = e.getAttribute("data-status");
		return s === "connected" || s === "error" || !!e.getAttribute("data-error-message");
	}`, selStatus, playwright.PageWaitForFunctionOptions{Timeout: &ms}); err != nil {
		st, _ := page.Locator(selStatus).GetAttribute("data-status", playwright.LocatorGetAttributeOptions{Timeout: playwright.Float(1000)})
		return fmt.Errorf("the Inspector did not connect to %s within %s (status %q; does the token match?): %w", h.serverURL(), timeout, st, err)
	}
	status := page.Locator(selStatus)
	if st, _ := status.GetAttribute("data-status"); st != "connected" {
		msg, _ := status.GetAttribute("data-error-message")
		return fmt.Errorf("the Inspector could not connect to %s: status %q: %s", h.serverURL(), st, msg)
	}
	return clickOpenApp(page, tool, timeout)
}

func (h *Host) serverURL() string { return h.server }

// clickOpenApp clicks the Inspector's Open App button for tool and waits
// for the app iframe, or the Inspector's own "App failed to load" panel.
func clickOpenApp(page playwright.Page, tool string, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	if err := page.Locator(selOpenApp).Click(playwright.LocatorClickOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("clicking Open App for %s: %w", tool, err)
	}
	either := page.Locator(selAppFrame + ", " + selAppsError).First()
	if err := either.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: &ms}); err != nil {
		return fmt.Errorf("the Inspector showed no app frame within %s: %w", timeout, err)
	}
	if n, _ := page.Locator(selAppsError).Count(); n > 0 {
		txt, _ := page.Locator(selAppsError).InnerText()
		return fmt.Errorf("the Inspector could not open %s: %s", tool, strings.TrimSpace(txt))
	}
	return nil
}

// toolTimeout bounds OpenTool's deep link, connection and Open App (the
// Inspector takes about 5 s to connect and 1.5 s more for the frame).
const toolTimeout = 25 * time.Second

// OpenTool shows the View of req.Tool called with req.Arguments, as a user
// of the Inspector's deep link would: in a new tab of the same browser
// context (the suite's View stays in the first), the link connects to the
// fixture server, selects the tool in the Apps tab with the arguments
// filled in, and the driver clicks Open App. The tab of the previous
// OpenTool is closed first; Teardown closes the last one with the context.
func (h *Host) OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.closeToolPage()
	args := []byte(req.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	// The driver's own tab (NewTab): what it loads is not a link the app
	// opened, nor a window the host put before its user.
	p, err := h.NewTab()
	if err != nil {
		return protocol.Result{}, fmt.Errorf("a new tab for %s: %w", req.Tool, err)
	}
	h.toolPage = p
	// A native dialog would block the tab's renderer: none is expected
	// from a probe View, so any is dismissed.
	p.OnDialog(func(d playwright.Dialog) { d.Dismiss() })
	if err := h.openAppIn(p, req.Tool, args, toolTimeout); err != nil {
		return protocol.Result{OK: false, Error: browserhost.FirstLine(err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// CloseView presses the Close button of the Apps tab whose View displays
// req.Marker (the tab of an OpenTool, or the host page) and waits until the
// Inspector has removed the app frame.
func (h *Host) CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	var page playwright.Page
	for _, p := range []playwright.Page{h.toolPage, h.Page} {
		if p == nil || p.IsClosed() {
			continue
		}
		view := p.FrameLocator(selAppFrame).FrameLocator("iframe")
		if n, err := view.GetByText(req.Marker).Count(); err == nil && n > 0 {
			page = p
			break
		}
	}
	if page == nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no View displays %q", req.Marker)}, nil
	}
	return browserhost.ClickUntilGone(page, selCloseApp, selAppFrame, "the Apps tab's Close button", 10*time.Second), nil
}

// closeToolPage closes the tab of the last OpenTool, if one is open.
func (h *Host) closeToolPage() {
	if h.toolPage != nil {
		h.toolPage.Close()
		h.toolPage = nil
	}
}

// Teardown closes the browser context and stops the Inspector it started
// (its whole process group); an attached Inspector is left running.
func (h *Host) Teardown(ctx context.Context) error {
	h.closeToolPage()
	err := h.Close()
	if h.inst != nil && h.inst.proc != nil {
		if e := h.inst.proc.Stop(3 * time.Second); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// dialogPolicy answers the host page's native dialogs at once: the
// renderer (and with it the View, in the same process) is blocked while
// one is open, so waiting for the suite to ask first would deadlock. The
// Inspector's download confirmation is accepted, as the user the suite
// stands for would; any other dialog is dismissed. ConfirmDialog reports
// what was shown.
func dialogPolicy(typ, msg string) (accept, record bool) {
	return typ == "confirm" && strings.Contains(msg, downloadPrompt), true
}

// ClickTrigger clicks the suite's trigger button for real. The Inspector
// has no composer, so there is never a drafted message to commit.
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.Click(ctx)
}

// ConfirmDialog reports the Inspector's confirmation of that kind. Only
// ui/download-file asks (window.confirm, accepted as it appears, see
// onDialog); ui/open-link opens a tab without asking and sampling has no
// dialog this driver can reach, so those answer unsupported with the reason.
func (h *Host) ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	switch req.Dialog {
	case protocol.DialogDownload:
	case protocol.DialogOpenLink:
		r := protocol.Unsupported(req.Kind)
		r.Error += " (MCP Inspector " + Version + " opens links without a confirmation dialog)"
		return r, nil
	default:
		r := protocol.Unsupported(req.Kind)
		r.Error += fmt.Sprintf(" (no %s dialog in the Inspector driver)", req.Dialog)
		return r, nil
	}
	d, ok, err := h.native.Next(ctx, 5*time.Second, func(d browserhost.Dialog) bool { return d.Accepted })
	if err != nil {
		return protocol.Result{}, err
	}
	if !ok {
		return protocol.Result{OK: false, Error: "no download confirmation appeared within 5s"}, nil
	}
	return protocol.Result{OK: true, Value: browserhost.MustJSON(d.Message)}, nil
}

// ToggleTheme clicks the Inspector's own colour-scheme button until <html>
// carries the wanted scheme.
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return browserhost.ToggleScheme(h.Page, selThemeToggle, "document.documentElement.getAttribute(\""+attrScheme+"\")", req.To)
}

// ResetIsolation returns the Inspector to a neutral state between manual
// tests: closes tabs the tests opened, forgets native dialogs, closes
// Inspector modals and restores the light scheme. It does not reopen the
// app: the suite that asks runs inside it, and reopening would end the run.
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.native.Forget()
	h.ForgetDownloads()
	if r, err := h.Reset(ctx); err != nil || !r.OK {
		return r, err
	}
	return h.ToggleTheme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}
