// Package reference is mcpconform's embedded MCP Apps web host: a small,
// spec-faithful chat product served by the binary (host page and sandbox
// proxy on two origins, a Go MCP client, a scripted agent). It is the default
// target of `mcpconform run` and the known-good baseline of every check.
package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// Selectors of the reference host page.
const (
	selComposer     = `[data-testid="composer"]`
	selSend         = `[data-testid="send"]`
	selConversation = `[data-testid="conversation"]`
	selThemeToggle  = `[data-testid="theme-toggle"]`
	selAppFrame     = `iframe[data-testid="app-frame"]`
	selAppCard      = `[data-testid="app-card"]`
	selToolStop     = `[data-testid="tool-stop"]`
	selViewClose    = `[data-testid="view-close"]`
	selToolPicker   = `[data-testid="tool-picker"]`
	selToolPanel    = `[data-testid="tool-picker-panel"]`
	// Prompt is what the driver types to make the agent show the suite.
	Prompt = "Run the MCP Apps conformance suite"
)

// Host drives the reference host in a browser page.
type Host struct {
	*browserhost.Base
	browserhost.Downloads // checkDownload
	srv                   *Server
	defects               DefectSet
	variations            VariationSet
	stopPrompts           []func() // the user answering recurring prompts (variations)
}

// init registers the host as --host reference (hosts/builtin imports it),
// built with the run's --host-defect and --host-variation.
func init() { hosts.Register("reference", FromParams) }

// FromParams is the reference host with the defects and variations p
// names; an unknown name is a usage error.
func FromParams(p hosts.Params) (hosts.Host, error) {
	d, err := ParseDefects(p.Defects)
	if err != nil {
		return nil, hosts.UsageError("%w", err)
	}
	v, err := ParseVariations(p.Variations)
	if err != nil {
		return nil, hosts.UsageError("%w", err)
	}
	return NewWith(d, v), nil
}

// New returns the defect-free reference host; Setup starts its backend.
func New() *Host { return NewWithDefects(nil) }

// NewWithDefects returns a reference host that breaks the requirements the
// defects name (see Defects).
func NewWithDefects(d DefectSet) *Host { return NewWith(d, nil) }

// NewWith returns a reference host with defects (requirements it breaks)
// and variations (legal differences, see Variations).
func NewWith(d DefectSet, v VariationSet) *Host {
	return &Host{Base: &browserhost.Base{AppFrame: []string{selAppFrame, "iframe"}}, defects: d, variations: v}
}

func (h *Host) Name() string { return "reference" }

// Defects are the defects this host was built with.
func (h *Host) Defects() DefectSet { return h.defects }

// Variations are the legal variations this host was built with.
func (h *Host) Variations() VariationSet { return h.variations }

// Server is the running backend, once Setup has run.
func (h *Host) Server() *Server { return h.srv }

// Setup starts the backend, opens the host page and asks the agent for
// the suite (or calls it from the picker, without an agent); the runner
// then binds the suite in the app frame (BindSuite, from the Base).
func (h *Host) Setup(ctx context.Context, env hosts.Env) error {
	servers := []string{env.ServerURL}
	if env.SecondServerURL != "" {
		servers = append(servers, env.SecondServerURL)
	}
	srv, err := NewServer(ctx, ServerOptions{MCPServers: servers, Defects: h.defects, Variations: h.variations})
	if err != nil {
		return err
	}
	h.srv = srv
	if err := h.Open(env, playwright.BrowserNewContextOptions{AcceptDownloads: playwright.Bool(true)}); err != nil {
		return err
	}
	h.WatchDownloads(h.Page)
	if _, err := h.Page.Goto(srv.HostURL + "/"); err != nil {
		return fmt.Errorf("opening the reference host page: %w", err)
	}
	if h.variations["no-agent"] {
		// Without an agent the user calls the suite's tool from the picker.
		if err := h.callFromPicker(SuiteTool, fmt.Sprintf(`{"nonce":%q}`, nonce())); err != nil {
			return err
		}
	} else {
		if err := h.Page.Locator(selComposer).Fill(Prompt); err != nil {
			return fmt.Errorf("typing the prompt: %w", err)
		}
		if err := h.Page.Locator(selSend).Click(); err != nil {
			return fmt.Errorf("sending the prompt: %w", err)
		}
	}
	timeout := env.AppTimeout
	// The user of a host that asks before acting: the driver answers each
	// such prompt as it appears.
	for v, dialog := range map[string]string{"message-consent": "message", "tool-call-approval": "tool-call"} {
		if h.variations[v] {
			confirm := h.Page.Locator(fmt.Sprintf(`[data-testid="dialog-%s"] [data-testid="dialog-confirm"]`, dialog))
			// Dispatched, not clicked with the mouse: an answer must not
			// take or lose one of the driver's own clicks (AutoDispatch).
			h.stopPrompts = append(h.stopPrompts, browserhost.AutoDispatch(confirm, 200*time.Millisecond, nil))
		}
	}
	if h.variations["rerender-once"] {
		// The driver knows its host: the suite to bind is the fresh View.
		ms := float64(timeout.Milliseconds())
		if err := h.Page.Locator(`[data-testid="rpc-log"] li[data-dir="host"]`).Filter(playwright.LocatorFilterOptions{HasText: "re-rendering the View"}).First().WaitFor(playwright.LocatorWaitForOptions{Timeout: &ms}); err != nil {
			return fmt.Errorf("the View was never re-rendered: %w", err)
		}
	}
	return nil
}

// callFromPicker calls a tool through the host's tool picker, as a user of
// a host without an agent does: the call takes the agent's path, and a tool
// with a UI shows its View in a new app card. It returns once the picker
// has taken the call (closed without an arguments error).
func (h *Host) callFromPicker(tool, args string) error {
	ms := float64(browserhost.ControlWait.Milliseconds())
	panel := h.Page.Locator(selToolPanel)
	steps := []struct {
		what string
		do   func() error
	}{
		{"opening the tool picker", func() error {
			// The button toggles: a picker left open is used as it is.
			if open, _ := panel.IsVisible(); open {
				return nil
			}
			return h.Page.Locator(selToolPicker).Click(playwright.LocatorClickOptions{Timeout: &ms})
		}},
		{"choosing " + tool, func() error {
			return h.Page.Locator(fmt.Sprintf(`[data-testid="tool-option"][data-tool=%q]`, tool)).Click(playwright.LocatorClickOptions{Timeout: &ms})
		}},
		{"entering the arguments", func() error {
			// The field shows once the choice is taken; a click that
			// chose nothing ends here, named, within the control wait
			// rather than after Playwright's 30 s default.
			field := h.Page.Locator(`[data-testid="tool-args"]`)
			if err := field.WaitFor(playwright.LocatorWaitForOptions{Timeout: &ms}); err != nil {
				return fmt.Errorf("the picker showed no arguments field after %s was clicked: %w", tool, err)
			}
			return field.Fill(args, playwright.LocatorFillOptions{Timeout: &ms})
		}},
		{"calling " + tool, func() error {
			return h.Page.Locator(`[data-testid="tool-call"]`).Click(playwright.LocatorClickOptions{Timeout: &ms})
		}},
		{"waiting for the picker to take the call", func() error {
			err := panel.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateHidden, Timeout: &ms})
			if err != nil {
				if msg, _ := h.Page.Locator(`[data-testid="tool-args-error"]`).TextContent(); msg != "" {
					return fmt.Errorf("the picker refused the arguments %s: %s", args, msg)
				}
			}
			return err
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	return nil
}

// Supports makes openTool absent under the no-open-tool variation (a host
// without a tool list) and readModelToolList under model-tool-list-unread
// (the agent must be asked); every other capability is the method's.
func (h *Host) Supports(k protocol.Kind) bool {
	switch k {
	case protocol.KindOpenTool:
		return !h.variations["no-open-tool"]
	case protocol.KindReadModelToolList:
		return !h.variations["model-tool-list-unread"]
	}
	return true
}

// KeepsViews says the page keeps every View: each call's View is an app
// card of the conversation, which stays until its close button is
// pressed, so probe Views may be opened side by side. It holds only where
// the driver opens tools itself (not under no-open-tool, where the agent
// is asked through the suite's trigger, one request at a time).
func (h *Host) KeepsViews(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: true, Value: browserhost.MustJSON(h.Supports(protocol.KindOpenTool))}, nil
}

// OpenTool calls the tool with the arguments from the host's own tool
// picker, as a user would: no agent is involved, and the tool's View
// appears in a new app card of the same page, rendered exactly as an
// agent-called one (the picker's call takes the agent's path).
func (h *Host) OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	args := string(req.Arguments)
	if args == "" {
		args = "{}"
	}
	// The user keeps the suite's View where they look, as the agent path
	// leaves it (ClickTrigger scrolls it into view before the message that
	// asks for the tool): the page follows new cards only from the end of
	// the conversation, and a View scrolled away is not rendered (an
	// <object> in it never loads).
	if el, err := h.SuiteFrameElement(); err == nil {
		el.ScrollIntoViewIfNeeded(playwright.ElementHandleScrollIntoViewIfNeededOptions{Timeout: playwright.Float(2000)})
	} else {
		// The runner did not bind the suite in its frame: the suite's
		// View is the first app card, the one Setup opened; scrolling the
		// host page reaches into no View.
		h.Page.Locator(`iframe[data-testid="app-frame"]`).First().ScrollIntoViewIfNeeded(playwright.LocatorScrollIntoViewIfNeededOptions{Timeout: playwright.Float(2000)})
	}
	if err := h.callFromPicker(req.Tool, args); err != nil {
		return protocol.Result{OK: false, Error: "the tool picker could not call " + req.Tool + ": " + browserhost.FirstLine(err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// Teardown closes the page and the backend.
func (h *Host) Teardown(ctx context.Context) error {
	for _, stop := range h.stopPrompts {
		stop()
	}
	err := h.Close()
	if h.srv != nil {
		h.srv.Close()
	}
	return err
}

// ClickTrigger clicks the suite's trigger button for real. The reference
// host sends ui/message straight into the conversation, so there is never
// a drafted message to commit. Other Views (the probe apps) may have
// scrolled the suite's card out of view: it is brought back first, and a
// click lost to a layout shift is retried.
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ClickInView(ctx)
}

// card finds the app card whose View displays marker: the View is the
// proxy's inner frame (or, without a proxy, the card's own frame).
func (h *Host) card(marker string) (playwright.Locator, error) {
	cards := h.Page.Locator(selAppCard)
	n, err := cards.Count()
	if err != nil {
		return nil, err
	}
	for i := n - 1; i >= 0; i-- {
		c := cards.Nth(i)
		outer := c.Locator("iframe").First().ContentFrame()
		for _, where := range []playwright.FrameLocator{outer.Locator("iframe").First().ContentFrame(), outer} {
			if k, err := where.GetByText(marker).Count(); err == nil && k > 0 {
				return h.sameCard(c), nil
			}
		}
	}
	return nil, nil
}

// sameCard is a locator for card c that keeps naming it when cards before
// it go: the card of its tool call (data-call), not its place. An Nth
// locator named the next card once c was removed, and CloseView then
// waited out its 30 s for a card that was still there (a View shown after
// the closed one: seen in CI under load, 2026-12-04).
func (h *Host) sameCard(c playwright.Locator) playwright.Locator {
	ms := float64(browserhost.ControlWait.Milliseconds())
	id, err := c.GetAttribute("data-call", playwright.LocatorGetAttributeOptions{Timeout: &ms})
	if err != nil || id == "" {
		return c
	}
	return h.Page.Locator(fmt.Sprintf(`%s[data-call=%q]`, selAppCard, id))
}

// cardShowing is card, waiting up to browserhost.ControlWait for a View
// that displays marker: a View the host re-rendered (the rerender-once
// variation) shows its marker again only once it has its tool-input anew,
// which on a loaded machine comes a while after the driver is asked. A
// single look decided "no View" by the host's speed.
func (h *Host) cardShowing(marker string) (playwright.Locator, error) {
	deadline := time.Now().Add(browserhost.ControlWait)
	for {
		c, err := h.card(marker)
		if err != nil || c != nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// CancelTool presses Stop on the card whose View shows the marker; the host
// cancels the MCP call and tells the View (ui/notifications/tool-cancelled).
func (h *Host) CancelTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.pressOnCard(req.Marker, func(c playwright.Locator) (playwright.Locator, playwright.Locator) {
		// Stop is shown only while the call runs.
		stop := c.Locator(selToolStop)
		return stop, stop
	}, playwright.WaitForSelectorStateHidden, 10000,
		"no Stop control for that View (is its tool call still running?): ",
		"the tool call kept running after Stop: ")
}

// CloseView clicks the close button of the card whose View shows the marker
// and waits until the host has taken the close: the page disables the
// button as it starts tearing the View down, and removes the card once the
// View has answered ui/resource-teardown (up to 15 s later:
// TEARDOWN_ANSWER_MS in web/view.ts). What the View saw of the teardown
// is the checks' to judge from its reports; waiting here for the removal
// held the runner, and with it every check beside this one, for the
// View's second of work (lifecycle/teardown-sent's probe, issue #27).
func (h *Host) CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.pressOnCard(req.Marker, func(c playwright.Locator) (playwright.Locator, playwright.Locator) {
		// Gone once the button is disabled or the card removed.
		return c.Locator(selViewClose), c.Locator(selViewClose + ":enabled")
	}, playwright.WaitForSelectorStateDetached, 30000,
		"could not press the close button: ",
		"the host did not take the close (the button stayed enabled and the View shown): ")
}

// pressOnCard finds the card whose View shows marker, clicks the button
// controls picks on it (within browserhost.ControlWait) and waits up to
// waitMs for the target controls picks to reach state. A failed click or wait is the result's
// error: clickFailed or waitFailed followed by the first line of the cause.
func (h *Host) pressOnCard(marker string, controls func(card playwright.Locator) (button, target playwright.Locator), state *playwright.WaitForSelectorState, waitMs float64, clickFailed, waitFailed string) (protocol.Result, error) {
	c, err := h.cardShowing(marker)
	if err != nil {
		return protocol.Result{}, err
	}
	if c == nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no View displays %q", marker)}, nil
	}
	button, target := controls(c)
	ms := float64(browserhost.ControlWait.Milliseconds())
	if err := button.Click(playwright.LocatorClickOptions{Timeout: &ms}); err != nil {
		return protocol.Result{OK: false, Error: clickFailed + browserhost.FirstLine(err)}, nil
	}
	if err := target.WaitFor(playwright.LocatorWaitForOptions{State: state, Timeout: &waitMs}); err != nil {
		return protocol.Result{OK: false, Error: waitFailed + browserhost.FirstLine(err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// ConfirmDialog accepts the host's confirmation dialog of that kind.
func (h *Host) ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if req.Dialog == protocol.DialogDownload && (h.variations["download-toast-unconfirmed"] || h.variations["download-asks-in-window"]) {
		// The driver was not told how the host asks about a download (as
		// a profile whose CONFIRM or DIALOGS leaves downloads out).
		return browserhost.UnsupportedDialog(req, "the driver was not told how this host asks before a download"), nil
	}
	sel := fmt.Sprintf(`[data-testid="dialog-%s"] [data-testid="dialog-confirm"]`, req.Dialog)
	if err := h.ClickWhenVisible(sel, 5*time.Second); err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no %s dialog appeared: %v", req.Dialog, err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// ConversationContains waits for a marker in the conversation.
func (h *Host) ConversationContains(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.TextContains(ctx, selConversation, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// MessageRole reads the role of the conversation's turn that shows the
// marker (the turns carry data-role).
func (h *Host) MessageRole(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ReadMessageRole(ctx, selConversation, selConversation+` [data-role="user"]`, selConversation+` [data-role="assistant"]`, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// ToggleTheme clicks the host's own theme button until the theme is req.To.
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	want := "theme-" + req.To
	for i := 0; i < 2; i++ {
		cls, err := h.Page.Locator("body").GetAttribute("class")
		if err != nil {
			return protocol.Result{}, err
		}
		if cls == want {
			return protocol.Result{OK: true}, nil
		}
		if err := h.Page.Locator(selThemeToggle).Click(); err != nil {
			return protocol.Result{}, err
		}
	}
	return protocol.Result{OK: false, Error: "the theme toggle did not reach " + req.To}, nil
}

// ReadModelToolList reads the agent's tool list straight from the backend.
func (h *Host) ReadModelToolList(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if h.srv == nil {
		return protocol.Result{}, errors.New("backend not started")
	}
	b, _ := json.Marshal(h.srv.ModelToolNames())
	return protocol.Result{OK: true, Value: b}, nil
}

// ReadNewSessionToolList reads, straight from the backend, the agent's
// tool list in a conversation started now beside the page's, which goes
// on.
func (h *Host) ReadNewSessionToolList(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if h.srv == nil {
		return protocol.Result{}, errors.New("backend not started")
	}
	b, _ := json.Marshal(h.srv.NewSessionToolNames())
	return protocol.Result{OK: true, Value: b}, nil
}

// ResetIsolation closes stray tabs and dialogs, forgets unreported
// downloads and restores the light theme.
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	h.ForgetDownloads()
	if r, err := h.Reset(ctx); err != nil || !r.OK {
		return r, err
	}
	return h.ToggleTheme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}
