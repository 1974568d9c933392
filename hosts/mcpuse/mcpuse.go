// Package mcpuse drives the mcp-use Inspector (@mcp-use/inspector, pinned
// to Version; its CLI mcp-inspect), an MCP server inspector by others that
// renders MCP Apps (SEP-1865) in tool results with the ext-apps AppBridge,
// so that `mcpconform run --host mcp-use` judges its host side.
//
// On first use the driver installs the package with npm into the npm cache
// (internal/npmcache). It starts the CLI with the Node that runs the
// Playwright driver (internal/nodeproc: own process group, throwaway HOME,
// minimal environment) on a free loopback port with --no-open, telemetry
// off (MCP_USE_ANONYMIZED_TELEMETRY=false) and a preload that binds its
// listener to 127.0.0.1 (the CLI listens on every interface otherwise).
// The page connects to the fixture servers (the second first, so that the
// cross-server checks have another connection to try) through the
// Inspector's own autoConnect link, directly: the fixture servers answer
// CORS for its loopback page (fixtures/mcpserver.CORS), so it does not
// fall back to its own proxy, which lets 120 requests a minute through.
// The driver then does what a user does: selects the
// suite's tool in the Tools tab, fills its form and presses Execute; the
// result's View is an iframe of the Inspector's sandbox proxy (the same
// port on localhost, another origin than the page on 127.0.0.1) holding
// the app's document as srcdoc, where the suite runs.
//
// Capabilities, each backed by something the Inspector really does: real
// clicks, its own theme button (in the View's toolbar; hostContext.theme),
// the "MCP App download request" toast it shows before ui/download-file,
// new tabs from ui/open-link, the host DOM around the View, console lines,
// openTool (the same steps for another tool in a new tab of the same
// browser context, so the suite's View stays) and cancelTool (its Cancel
// button while a call runs) and closeView (switching the result to Raw
// JSON, which unmounts the View). Without an LLM key it has no agent and
// no conversation, so conversationContains and readModelToolList are
// absent and those checks skip.
package mcpuse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/internal/nodeproc"
	"github.com/mcpconform/mcpconform/protocol"
)

// Selectors of the mcp-use Inspector 20.3.10 web client.
const (
	selServerError = `[data-testid="server-tile-error"]`
	selExecute     = `[data-testid="tool-execution-execute-button"]`
	selCancel      = `[data-testid="tool-execution-cancel-button"]`
	selTheme       = `[data-testid="debugger-theme-button"]`
	selDownloadOK  = `[data-testid="mcp-app-download-confirm"]`
	// The Tools tab's switch of a result to its Raw JSON, which unmounts
	// the View (the Inspector's way to take a View off the page).
	selRawJSON = `[data-testid="tool-result-view-json"]`
	// Any rendering of a tool result other than a View.
	selResult = `[data-testid^="tool-execution-results-"]`
	// The toast that holds the download confirmation (sonner).
	selToast = `[data-sonner-toast]`
)

func selTool(name string) string  { return `[data-testid="tool-item-` + name + `"]` }
func selParam(name string) string { return `[data-testid="tool-param-` + name + `"]` }

// selFrame is the iframe of tool's View (the sandbox proxy).
func selFrame(tool string) string { return `iframe[title="MCP App: ` + tool + `"]` }

// Options configure the driver; the zero value is what the CLI uses.
type Options struct {
	// Prefix is the npm install prefix (default npmcache.Dir(Spec)).
	Prefix string
	// StartTimeout bounds the Inspector's start until its UI answers
	// (default 60s); InstallTimeout bounds the npm install (default 5m).
	StartTimeout, InstallTimeout time.Duration
}

// Host drives the mcp-use Inspector in a browser page.
type Host struct {
	*browserhost.Base
	opts   Options
	inst   *instance
	server string
	logf   func(string, ...any)
	// toolPage is the tab of the last OpenTool (nil when none is open).
	toolPage playwright.Page
}

// init registers the host as --host mcp-use (hosts/builtin imports it).
func init() { hosts.Register("mcp-use", hosts.Plain(New)) }

// New returns the driver with default options.
func New() *Host { return NewWithOptions(Options{}) }

// NewWithOptions returns a driver.
func NewWithOptions(o Options) *Host {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.InstallTimeout <= 0 {
		o.InstallTimeout = 5 * time.Minute
	}
	return &Host{Base: &browserhost.Base{AppFrame: []string{selFrame(mcpserver.ToolSuite), "iframe"}}, opts: o}
}

func (h *Host) Name() string { return "mcp-use" }

// Setup installs (first use) and starts the Inspector, connects it to the
// fixture server, executes the suite's tool and binds to the suite.
func (h *Host) Setup(ctx context.Context, env hosts.Env) error {
	logf, err := browserhost.SetupLog(env)
	if err != nil {
		return err
	}
	h.logf = logf
	h.server = env.ServerURL
	t0 := time.Now()
	if h.inst, err = launch(ctx, h.opts, env.Node, h.logf); err != nil {
		return err
	}
	h.logf("started the mcp-use Inspector %s at %s/inspector (pid %d) in %s", Version, h.inst.URL, h.inst.proc.PID(), time.Since(t0).Round(time.Millisecond))
	// The Inspector shows no native dialog: any is dismissed.
	if err := h.OpenForSetup(env); err != nil {
		return err
	}
	timeout := env.AppTimeout
	if env.SecondServerURL != "" {
		if err := h.connectSecond(env.SecondServerURL, timeout); err != nil {
			return err
		}
	}
	args, _ := json.Marshal(map[string]string{"nonce": nodeproc.RandomHex(16)})
	if err := h.execute(h.Page, mcpserver.ToolSuite, args, true, timeout); err != nil {
		return err
	}
	return nil
}

// connectSecond connects the Inspector to the second fixture server too,
// through the same autoConnect link, and waits until it lists that
// server's tool. The Inspector keeps every
// connection (saved in the page's storage, reconnected on load), so the
// suite's View then sits in a host connected to two servers, and the
// cross-server check can try to reach the other one.
func (h *Host) connectSecond(serverURL string, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	if _, err := h.Page.Goto(h.inst.URL+"/inspector?autoConnect="+url.QueryEscape(serverURL), playwright.PageGotoOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("opening the mcp-use Inspector at %s: %w", h.inst.URL, err)
	}
	if err := h.Page.Locator(selTool(mcpserver.ToolSecond)).WaitFor(playwright.LocatorWaitForOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("the mcp-use Inspector did not list %s of the second server %s within %s: %w", mcpserver.ToolSecond, serverURL, timeout, err)
	}
	return nil
}

// connectURL is the Inspector's link that connects to the server and
// opens its Tools tab.
func (h *Host) connectURL() string {
	return h.inst.URL + "/inspector?autoConnect=" + url.QueryEscape(h.server)
}

// execute connects page to the fixture server, selects tool in the Tools
// tab, fills its form with args (a JSON object) and presses Execute, then
// waits for the result's View frame.
//
// With wantView false (a probe of openTool) a result shown without a View
// is enough: the host called the tool, and whether a View comes is the
// suite's to judge.
func (h *Host) execute(page playwright.Page, tool string, args []byte, wantView bool, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	if _, err := page.Goto(h.connectURL(), playwright.PageGotoOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("opening the mcp-use Inspector at %s: %w", h.inst.URL, err)
	}
	either := page.Locator(selTool(tool) + ", " + selServerError).First()
	if err := either.WaitFor(playwright.LocatorWaitForOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("the mcp-use Inspector did not list %s of %s within %s: %w", tool, h.server, timeout, err)
	}
	if n, _ := page.Locator(selServerError).Count(); n > 0 {
		txt, _ := page.Locator(selServerError).First().InnerText()
		return fmt.Errorf("the mcp-use Inspector could not connect to %s: %s", h.server, strings.TrimSpace(txt))
	}
	if err := page.Locator(selTool(tool)).Click(playwright.LocatorClickOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("selecting %s: %w", tool, err)
	}
	if err := fillForm(page, tool, args, ms); err != nil {
		return err
	}
	if err := page.Locator(selExecute).Click(playwright.LocatorClickOptions{Timeout: &ms}); err != nil {
		return fmt.Errorf("pressing Execute for %s: %w", tool, err)
	}
	shown := page.Locator(selFrame(tool))
	if !wantView {
		shown = page.Locator(selFrame(tool) + ", " + selResult).First()
	}
	if err := shown.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: &ms}); err != nil {
		return fmt.Errorf("the mcp-use Inspector showed no View for %s within %s: %w", tool, timeout, err)
	}
	return nil
}

// fillForm types each argument into the tool form's field of that name,
// as text: the form turns it into the schema's type (numbers, booleans;
// objects and arrays from JSON). An argument without a field is an error.
func fillForm(page playwright.Page, tool string, args []byte, ms float64) error {
	var m map[string]json.RawMessage
	if len(args) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return fmt.Errorf("arguments of %s: %w", tool, err)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := map[string]string{}
	for _, k := range keys {
		want[k] = string(m[k])
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			want[k] = s
		}
	}
	// The form may still re-render for the newly selected tool after the
	// first fill (seen under load: an emptied field, a call never made), so
	// the values are read back, and filled again until they stay.
	for attempt := 0; ; attempt++ {
		for _, k := range keys {
			f := page.Locator(selParam(k))
			if n, _ := f.Count(); n == 0 {
				return fmt.Errorf("the form of %s has no field %q", tool, k)
			}
			if err := f.Fill(want[k], playwright.LocatorFillOptions{Timeout: &ms}); err != nil {
				return fmt.Errorf("filling %s of %s: %w", k, tool, err)
			}
		}
		// The form's re-render after the last field, if it makes one.
		if err := browserhost.Rendered(page); err != nil {
			return fmt.Errorf("filling the form of %s: waiting for the page to render: %w", tool, err)
		}
		bad := ""
		for _, k := range keys {
			if v, err := page.Locator(selParam(k)).InputValue(); err != nil || v != want[k] {
				bad = k
				break
			}
		}
		if bad == "" {
			return nil
		}
		if attempt == 3 {
			return fmt.Errorf("the form of %s does not keep the value of %s", tool, bad)
		}
	}
}

// toolTimeout bounds OpenTool's connection, form and Execute until the
// View's frame is there.
const toolTimeout = 25 * time.Second

// OpenTool shows the View of req.Tool called with req.Arguments, as a user
// does: in a new tab of the same browser context (the suite's View stays
// in the first) the Inspector connects, the driver selects the tool, fills
// the form and presses Execute. The tab of the previous OpenTool is closed
// first; Teardown closes the last one with the context.
func (h *Host) OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.closeToolPage()
	p, err := h.NewTab()
	if err != nil {
		return protocol.Result{}, fmt.Errorf("a new tab for %s: %w", req.Tool, err)
	}
	h.toolPage = p
	p.OnDialog(func(d playwright.Dialog) { d.Dismiss() })
	if err := h.execute(p, req.Tool, []byte(req.Arguments), false, toolTimeout); err != nil {
		return protocol.Result{OK: false, Error: browserhost.FirstLine(err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// pageShowing is the tab whose View displays marker.
func (h *Host) pageShowing(marker string) (playwright.Page, error) {
	for _, p := range []playwright.Page{h.toolPage, h.Page} {
		if p == nil || p.IsClosed() {
			continue
		}
		view := p.FrameLocator(`iframe[title^="MCP App: "]`).FrameLocator("iframe")
		if n, err := view.GetByText(marker).Count(); err == nil && n > 0 {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no View displays %q", marker)
}

// CancelTool presses the Inspector's Cancel (shown instead of Execute
// while the call runs) in the tab whose View displays req.Marker.
func (h *Host) CancelTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	p, err := h.pageShowing(req.Marker)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	if err := p.Locator(selCancel).Click(playwright.LocatorClickOptions{Timeout: playwright.Float(3000)}); err != nil {
		return protocol.Result{OK: false, Error: "could not press Cancel (is the call still running?): " + browserhost.FirstLine(err)}, nil
	}
	if err := p.Locator(selCancel).WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: playwright.Float(5000)}); err != nil {
		return protocol.Result{OK: false, Error: "the call did not stop after Cancel: " + browserhost.FirstLine(err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// CloseView switches the result whose View displays req.Marker to Raw
// JSON (the Tools tab's own control; the Inspector unmounts the View,
// sending ui/resource-teardown first) and waits until the View's frame is
// gone.
func (h *Host) CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	p, err := h.pageShowing(req.Marker)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	return browserhost.ClickUntilGone(p, selRawJSON, `iframe[title^="MCP App: "]`, "the result's Raw JSON switch", 10*time.Second), nil
}

// closeToolPage closes the tab of the last OpenTool, if one is open.
func (h *Host) closeToolPage() {
	if h.toolPage != nil {
		h.toolPage.Close()
		h.toolPage = nil
	}
}

// Teardown closes the browser context and stops the Inspector (its whole
// process group).
func (h *Host) Teardown(ctx context.Context) error {
	h.closeToolPage()
	err := h.Close()
	if h.inst != nil {
		err = errors.Join(err, h.inst.proc.Stop(3*time.Second))
	}
	return err
}

// ClickTrigger clicks the suite's trigger for real, scrolled into view.
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ClickInView(ctx)
}

// ConfirmDialog presses Download on the Inspector's "MCP App download
// request" toast (it waits there until answered) and reports its text.
// ui/open-link opens a tab without asking, and sampling has no dialog
// without an LLM key: those answer unsupported with the reason.
func (h *Host) ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if req.Dialog == protocol.DialogOpenLink {
		return browserhost.UnsupportedDialog(req, "the mcp-use Inspector "+Version+" opens links without a confirmation dialog"), nil
	}
	if req.Dialog != protocol.DialogDownload {
		return browserhost.UnsupportedDialog(req, fmt.Sprintf("no %s dialog in the mcp-use driver", req.Dialog)), nil
	}
	ok := h.Page.Locator(selDownloadOK).First()
	if err := ok.WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(5000)}); err != nil {
		return protocol.Result{OK: false, Error: "no download confirmation appeared within 5s"}, nil
	}
	txt, _ := h.Page.Locator(selToast).Filter(playwright.LocatorFilterOptions{Has: ok}).InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(2000)})
	// Toasts stack: one over the button (an earlier notice) takes the
	// real click, so the button's own click event is the fallback.
	if err := ok.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(2000)}); err != nil {
		if err := ok.DispatchEvent("click", nil); err != nil {
			return protocol.Result{OK: false, Error: "could not press Download: " + browserhost.FirstLine(err)}, nil
		}
	}
	return protocol.Result{OK: true, Value: browserhost.MustJSON(strings.TrimSpace(txt))}, nil
}

// schemeJS is the Inspector's scheme: the "dark" class on <html>.
const schemeJS = `(document.documentElement.classList.contains("dark") ? "dark" : "light")`

// ToggleTheme clicks the theme button of the View's toolbar until the
// Inspector's scheme is the wanted one.
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return browserhost.ToggleScheme(h.Page, selTheme, schemeJS, req.To)
}

// ResetIsolation closes tabs the tests opened, forgets downloads, presses
// Escape and restores the light scheme. The suite's View stays (the suite
// that asks runs in it).
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.ForgetDownloads()
	if r, err := h.Reset(ctx); err != nil || !r.OK {
		return r, err
	}
	return h.ToggleTheme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}
