// Package webchat is the shared driver of hosted chat products (ChatGPT,
// Claude) that render MCP Apps: a browserhost.Base that logs in from a
// Playwright storage state, asks the model to call the suite tool, finds
// the app, and offers the capability building blocks every such product
// needs. What differs between products is split in two:
//
//   - data, in a Profile: URLs, selectors, prompt, timeouts, each
//     overridable by MCPCONFORM_<PRODUCT>_* without a rebuild;
//   - steps, in Hooks: how to enter a prompt, dismiss a modal, find the
//     app, commit a drafted message, verify a conversation turn, toggle
//     the theme. DefaultHooks implements each from the profile; a product
//     embeds it and overrides what its pages do differently.
//
// A product package wraps *Chat in its own Host type and declares the
// capability methods it supports, each a one-line call into Chat.
package webchat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// Hooks are the product-specific steps. Each receives the Chat, whose
// Page, Profile and building blocks it uses.
type Hooks interface {
	// DismissModal closes product chrome that covers the page. wait is how
	// long a modal may take to appear (0: only what is visible now). No
	// modal is not an error.
	DismissModal(ctx context.Context, c *Chat, wait time.Duration) error
	// SendPrompt enters prompt in the composer and sends it.
	SendPrompt(ctx context.Context, c *Chat, prompt string) error
	// FindApp waits until the product shows the app's iframe, approving
	// the model's tool call if the product asks.
	FindApp(ctx context.Context, c *Chat, timeout time.Duration) error
	// CommitMessage sends a message the product drafted into its composer
	// for a ui/message; products that send ui/message at once do nothing.
	CommitMessage(ctx context.Context, c *Chat) error
	// VerifyConversation reports whether marker appears in a turn of the
	// conversation within timeout.
	VerifyConversation(ctx context.Context, c *Chat, marker string, timeout time.Duration) (bool, error)
	// ToggleTheme puts the product in the light or dark theme.
	ToggleTheme(ctx context.Context, c *Chat, to string) error
}

// Options configure a Chat.
type Options struct {
	// Getenv reads the MCPCONFORM_<PRODUCT>_* overrides (os.Getenv when nil).
	Getenv func(string) string
}

// Chat is the shared state of a chat-product driver.
type Chat struct {
	*browserhost.Base
	// Profile is the effective profile, once Setup has loaded it.
	Profile *Profile
	// State is the storage state the context was opened with.
	State *StorageState

	builtin Profile
	hooks   Hooks
	// composerBefore is the composer's text just before a trigger click
	// that may draft a message.
	composerBefore string
	getenv         func(string) string
	logf           func(string, ...any)

	// The approval watcher (see watchApprovals). input serialises its
	// clicks with the capabilities' page input, so that two mouse
	// sequences never interleave.
	stopWatch chan struct{}
	watching  sync.WaitGroup
	input     sync.Mutex
}

// New returns a driver for the product described by builtin, with its hooks.
func New(builtin Profile, h Hooks, o Options) *Chat {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return &Chat{Base: &browserhost.Base{}, builtin: builtin, hooks: h, getenv: o.Getenv, logf: func(string, ...any) {}}
}

// Builtin is the product's built-in profile (before the environment).
func (c *Chat) Builtin() Profile { return c.builtin }

// AllowedHosts loads the profile from the environment and returns the host
// names the browser must reach for this product (the loopback guard's
// allowlist); the CSP targets of a public fixture server come on top. It
// is for the caller that launches the browser, before Setup.
func (c *Chat) AllowedHosts() ([]string, error) {
	p, err := LoadProfile(c.builtin, c.getenv)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), p.AllowedHosts...), nil
}

// Logf logs through the run's logger.
func (c *Chat) Logf(format string, args ...any) { c.logf(format, args...) }

// ErrNoStorageState means the product's storage-state variable is unset or empty.
var ErrNoStorageState = errors.New("no storage state")

// Setup loads the profile, opens a browser context logged in from the
// storage state, starts a conversation, asks the model for the suite and
// binds to it. Every failure names the variable that controls the step.
func (c *Chat) Setup(ctx context.Context, env hosts.Env) (hosts.SuiteBridge, error) {
	if env.Logf != nil {
		c.logf = env.Logf
	}
	p, err := LoadProfile(c.builtin, c.getenv)
	if err != nil {
		return nil, err
	}
	c.Profile = p
	c.logf("%s: this driver is experimental: its selectors and steps follow public descriptions of %s and are tested against a local imitation, not the live product (see docs/hosted.md)", p.Product, p.DisplayName)
	if p.StorageState == "" || p.StorageState == None {
		return nil, fmt.Errorf("%w: %s is not set or empty: %s needs a logged-in session. Run `mcpconform login --host %s --out FILE` and set %s to FILE's path (in CI, write the secret to a file first; see docs/hosted.md)",
			ErrNoStorageState, p.Var("StorageState"), p.DisplayName, p.Product, p.Var("StorageState"))
	}
	st, err := LoadStorageState(p.StorageState, c.logf)
	if err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, p.Var("StorageState"))
	}
	c.State = st
	c.logf("%s: storage state from %s: %d cookies, %d origins", p.Product, p.Var("StorageState"), st.Cookies, st.Origins)
	c.AppFrame = p.Frames()
	if env.TraceFile != "" {
		c.logf("%s: warning: the Playwright trace %s records request headers, the session's cookies included: keep it as private as the storage state", p.Product, env.TraceFile)
	}
	if env.ServerURL != "" {
		c.logf("%s: the product reaches the fixture server through its registered connector, not %s", p.Product, env.ServerURL)
	}
	if err := c.Open(env, playwright.BrowserNewContextOptions{
		StorageState: st.State,
		Viewport:     &playwright.Size{Width: 1440, Height: 1000},
		ColorScheme:  playwright.ColorSchemeLight,
	}); err != nil {
		return nil, st.RedactErr(err)
	}
	c.Page.SetDefaultTimeout(float64(p.PageTimeout.Milliseconds()))
	if err := c.checkSelectors(); err != nil {
		return nil, err
	}
	if err := c.openConversation(ctx); err != nil {
		return nil, st.RedactErr(err)
	}
	if err := c.hooks.DismissModal(ctx, c, p.ModalWait); err != nil {
		return nil, err
	}
	if err := c.hooks.SendPrompt(ctx, c, p.ExpandedPrompt()); err != nil {
		return nil, err
	}
	timeout := env.AppTimeout
	if timeout <= 0 {
		timeout = 90 * time.Second
	}
	start := time.Now()
	if err := c.hooks.FindApp(ctx, c, timeout); err != nil {
		return nil, err
	}
	left := timeout - time.Since(start)
	if left < 10*time.Second {
		left = 10 * time.Second
	}
	sb, err := c.Bind(ctx, left)
	if err != nil {
		return nil, err
	}
	c.watchApprovals()
	return sb, nil
}

// Teardown stops the approval watcher and closes the browser context.
func (c *Chat) Teardown(ctx context.Context) error {
	if c.stopWatch != nil {
		close(c.stopWatch)
		c.watching.Wait()
		c.stopWatch = nil
	}
	return c.Close()
}

// watchApprovals approves, for the rest of the run, every tool call the
// product asks about: checks ask the model (through ui/message) to call the
// fixture's probe tools, and a product that asks before each call would
// otherwise hold them until they skip. The approval is a real click on the
// host page, as the user would give it; nothing runs in the app's frames.
func (c *Chat) watchApprovals() {
	sel := c.Profile.Sel("ToolApprove")
	if sel == "" {
		return
	}
	c.stopWatch = make(chan struct{})
	stop := c.stopWatch
	c.watching.Add(1)
	go func() {
		defer c.watching.Done()
		btn := c.Page.Locator(sel).First()
		for {
			select {
			case <-stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
			if v, err := btn.IsVisible(); err == nil && v {
				c.input.Lock()
				err := btn.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(2000)})
				c.input.Unlock()
				if err == nil {
					c.logf("%s: approved a tool call the model made during the run", c.Profile.Product)
				}
			}
		}
	}()
}

// checkSelectors fails at once on a selector Playwright cannot parse, naming
// its variable, instead of timing out later.
func (c *Chat) checkSelectors() error {
	var errs []error
	check := func(name, sel string) {
		if sel == "" {
			return
		}
		if _, err := c.Page.Locator(sel).Count(); err != nil {
			errs = append(errs, fmt.Errorf("%s is not a valid selector: %v", name, firstLine(err)))
		}
	}
	for _, f := range append(append([]string{}, requiredSelectors...), optionalSelectors...) {
		check(c.Profile.Describe(f), c.Profile.Sel(f))
	}
	for i, s := range c.Profile.Frames() {
		check(fmt.Sprintf("app frame selector #%d %q (%s)", i+1, s, c.Profile.Source("AppFrame")), s)
	}
	return errors.Join(errs...)
}

// openConversation loads the product and waits for its composer, failing
// fast when the product shows its login page instead.
func (c *Chat) openConversation(ctx context.Context) error {
	p := c.Profile
	if _, err := c.Page.Goto(p.URL); err != nil {
		return fmt.Errorf("opening %s (%s): %w", p.URL, p.Source("URL"), err)
	}
	composer := c.Page.Locator(p.Sel("Composer")).First()
	either := composer
	if lo := p.Sel("LoggedOut"); lo != "" {
		either = composer.Or(c.Page.Locator(lo).First())
	}
	err := either.First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible})
	if c.loggedOut() {
		return c.errLoggedOut()
	}
	if err != nil {
		return fmt.Errorf("%s did not show its composer within %s: %s matched nothing visible on %s: %v",
			p.DisplayName, p.PageTimeout, p.Describe("Composer"), c.Page.URL(), firstLine(err))
	}
	return nil
}

// loggedOut reports whether the page is the product's login page.
func (c *Chat) loggedOut() bool {
	p := c.Profile
	if p.loggedOutURL(c.Page.URL()) {
		return true
	}
	if lo := p.Sel("LoggedOut"); lo != "" {
		if v, err := c.Page.Locator(lo).First().IsVisible(); err == nil && v {
			return true
		}
	}
	return false
}

func (c *Chat) errLoggedOut() error {
	p := c.Profile
	return fmt.Errorf("%s shows its login page (%s): the session in %s is missing or expired; run `mcpconform login --host %s --out FILE` again and update the file (or the CI secret)",
		p.DisplayName, c.Page.URL(), p.Var("StorageState"), p.Product)
}

// --------------------------------------------------------- building blocks

// Locator is the page locator of a selector field (first match).
func (c *Chat) Locator(field string) playwright.Locator {
	return c.Page.Locator(c.Profile.Sel(field)).First()
}

// WaitVisible waits up to timeout (PageTimeout when 0) for the field's
// selector to match a visible element; the error names the variable.
func (c *Chat) WaitVisible(field string, timeout time.Duration) (playwright.Locator, error) {
	if timeout <= 0 {
		timeout = c.Profile.PageTimeout
	}
	l := c.Locator(field)
	ms := float64(timeout.Milliseconds())
	if err := l.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &ms}); err != nil {
		if c.loggedOut() {
			return nil, c.errLoggedOut()
		}
		return nil, fmt.Errorf("%s matched nothing visible within %s on %s: %v", c.Profile.Describe(field), timeout, c.Page.URL(), firstLine(err))
	}
	return l, nil
}

// ComposerText is the composer's current text, trimmed.
func (c *Chat) ComposerText() (string, error) {
	t, err := c.Locator("Composer").InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(2000)})
	return strings.TrimSpace(t), err
}

// FillComposer focuses the composer with a real click, replaces its text
// with text and checks that it took (an overlay can swallow the input).
func (c *Chat) FillComposer(ctx context.Context, text string) error {
	p := c.Profile
	composer, err := c.WaitVisible("Composer", 0)
	if err != nil {
		return err
	}
	if err := composer.Click(); err != nil {
		return c.ActionError("clicking the composer", "Composer", err)
	}
	if err := composer.Fill(text); err != nil {
		return c.ActionError("typing into the composer", "Composer", err)
	}
	if t, err := c.ComposerText(); err != nil || !strings.Contains(t, strings.TrimSpace(text)) {
		return fmt.Errorf("the composer (%s) does not hold the typed text after typing it", p.Describe("Composer"))
	}
	return nil
}

// PickMention types "@" + AppName key by key into the focused composer
// and picks the app from the product's mention picker with Enter.
func (c *Chat) PickMention(ctx context.Context) error {
	p := c.Profile
	composer, err := c.WaitVisible("Composer", 0)
	if err != nil {
		return err
	}
	if err := composer.PressSequentially("@" + p.AppName); err != nil {
		return c.ActionError("typing the mention @"+p.AppName, "Composer", err)
	}
	o, err := c.WaitVisible("MentionOption", 0)
	if err != nil {
		return fmt.Errorf("the mention picker did not offer %q (%s): %w", p.AppName, p.Source("AppName"), err)
	}
	if err := c.Page.Keyboard().Press("Enter"); err != nil {
		return err
	}
	if err := o.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateHidden}); err != nil {
		return fmt.Errorf("the mention picker stayed open after Enter (%s): %v", p.Describe("MentionOption"), firstLine(err))
	}
	return nil
}

// SendComposer clicks the send button and waits until the composer is
// empty: the message left.
func (c *Chat) SendComposer(ctx context.Context) error {
	p := c.Profile
	send, err := c.WaitVisible("Send", 0)
	if err != nil {
		return err
	}
	if err := send.Click(); err != nil {
		return c.ActionError("clicking send", "Send", err)
	}
	return c.waitFor(ctx, p.PageTimeout, func() (bool, error) {
		t, err := c.ComposerText()
		return err == nil && t == "", nil
	}, func() error {
		t, _ := c.ComposerText()
		return fmt.Errorf("the message did not leave the composer within %s after clicking send (%s); the composer still holds %d characters", p.PageTimeout, p.Describe("Send"), len(t))
	})
}

// DismissModals clicks the profile's modal-dismiss control while one is
// visible, waiting up to wait for one to appear first.
func (c *Chat) DismissModals(ctx context.Context, wait time.Duration) error {
	sel := c.Profile.Sel("ModalDismiss")
	if sel == "" {
		return nil
	}
	l := c.Page.Locator(sel).First()
	if wait > 0 {
		ms := float64(wait.Milliseconds())
		if err := l.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &ms}); err != nil {
			return nil // no modal: nothing to do
		}
	}
	for i := 0; i < 5; i++ {
		v, err := l.IsVisible()
		if err != nil || !v {
			return nil
		}
		if err := l.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(5000)}); err != nil {
			return c.ActionError("dismissing a modal", "ModalDismiss", err)
		}
		c.logf("%s: dismissed a modal", c.Profile.Product)
	}
	return nil
}

// WaitApp waits for the first app-frame selector to be attached, clicking
// the tool-approval button whenever the product shows it.
func (c *Chat) WaitApp(ctx context.Context, timeout time.Duration) error {
	p := c.Profile
	frames := p.Frames()
	frame := c.Page.Locator(frames[0])
	approve := p.Sel("ToolApprove")
	approvals := 0
	return c.waitFor(ctx, timeout, func() (bool, error) {
		if n, err := frame.Count(); err == nil && n > 0 {
			return true, nil
		}
		if approve != "" {
			a := c.Page.Locator(approve).First()
			if v, _ := a.IsVisible(); v {
				if err := a.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(5000)}); err == nil {
					approvals++
					c.logf("%s: approved the model's tool call", p.Product)
				}
			}
		}
		if c.loggedOut() {
			return false, c.errLoggedOut()
		}
		return false, nil
	}, func() error {
		return fmt.Errorf("%s showed no app iframe within %s after the prompt (app frame selector %q, %s; tool approvals clicked: %d, %s): is the connector %q added and enabled, and did the model call %s?",
			p.DisplayName, timeout, frames[0], p.Source("AppFrame"), approvals, p.Describe("ToolApprove"), p.AppName, mcpserver.ToolSuite)
	})
}

// CommitDraft sends the message the product drafted for a ui/message. It
// waits up to DraftTimeout for the draft: the product's proposal to replace
// the composer's text (accepted with a click), or new text in the composer.
// Nothing drafted is not an error (the product may have sent the message
// itself; conversationContains judges); it is logged.
func (c *Chat) CommitDraft(ctx context.Context) error {
	p := c.Profile
	if !p.CommitDrafts {
		return nil
	}
	before := c.composerBefore
	replace := p.Sel("DraftReplace")
	changed := func() bool {
		t, err := c.ComposerText()
		return err == nil && t != "" && t != before
	}
	state := ""
	c.waitFor(ctx, p.DraftTimeout, func() (bool, error) {
		if replace != "" {
			if v, _ := c.Page.Locator(replace).First().IsVisible(); v {
				state = "proposal"
				return true, nil
			}
		}
		if changed() {
			state = "draft"
			return true, nil
		}
		return false, nil
	}, func() error { return nil })
	switch state {
	case "":
		c.logf("%s: no drafted message appeared within %s (%s); nothing to commit", p.Product, p.DraftTimeout, p.Var("DraftTimeout"))
		return nil
	case "proposal":
		if err := c.Page.Locator(replace).First().Click(); err != nil {
			return c.ActionError("accepting the drafted message", "DraftReplace", err)
		}
		if err := c.waitFor(ctx, p.PageTimeout, func() (bool, error) { return changed(), nil }, func() error {
			return fmt.Errorf("accepting the proposal (%s) did not put the draft into the composer (%s)", p.Describe("DraftReplace"), p.Describe("Composer"))
		}); err != nil {
			return err
		}
	}
	return c.SendComposer(ctx)
}

// TurnContains reports whether marker appears in a conversation turn
// within timeout. Text in the composer (a draft) does not count.
func (c *Chat) TurnContains(ctx context.Context, marker string, timeout time.Duration) (bool, error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	l := c.Page.Locator(c.Profile.Sel("Turn")).Filter(playwright.LocatorFilterOptions{HasText: marker}).First()
	ms := float64(timeout.Milliseconds())
	err := l.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateAttached, Timeout: &ms})
	if err == nil {
		return true, nil
	}
	if errors.Is(err, playwright.ErrTimeout) {
		return false, nil
	}
	return false, fmt.Errorf("reading the conversation (%s): %v", c.Profile.Describe("Turn"), firstLine(err))
}

// EmulateTheme switches the page's prefers-color-scheme and waits for the
// product to follow (ThemeDark matching, or not). It works while the
// account's appearance setting is "system".
func (c *Chat) EmulateTheme(ctx context.Context, to string) error {
	p := c.Profile
	scheme := playwright.ColorSchemeLight
	if to == "dark" {
		scheme = playwright.ColorSchemeDark
	}
	if err := c.Page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}); err != nil {
		return err
	}
	sel := p.Sel("ThemeDark")
	if sel == "" {
		return nil // nothing to confirm it by
	}
	dark := c.Page.Locator(sel)
	return c.waitFor(ctx, 5*time.Second, func() (bool, error) {
		n, err := dark.Count()
		if err != nil {
			return false, err
		}
		return (n > 0) == (to == "dark"), nil
	}, func() error {
		return fmt.Errorf("%s did not follow the system colour scheme to %s within 5s (%s): set its appearance to System/Auto for this account", p.DisplayName, to, p.Describe("ThemeDark"))
	})
}

// waitFor polls cond every 100 ms until it holds, fails, or timeout passes
// (then onTimeout's error).
func (c *Chat) waitFor(ctx context.Context, timeout time.Duration, cond func() (bool, error), onTimeout func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return onTimeout()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ActionError describes a failed page action on a selector field: what was
// tried, the selector and its variable, Playwright's first line, and, when
// something covered the element, what it was and which variable dismisses
// modals.
func (c *Chat) ActionError(what, field string, err error) error {
	msg := fmt.Sprintf("%s (%s): %s", what, c.Profile.Describe(field), firstLine(err))
	if m := intercepts.FindStringSubmatch(err.Error()); m != nil {
		msg += fmt.Sprintf("; %s covers it (a modal or banner? %s)", m[1], c.Profile.Describe("ModalDismiss"))
	}
	return errors.New(msg)
}

var intercepts = regexp.MustCompile(`(<[^\n]*?>)\s+(?:from <[^\n]*?>\s+subtree\s+)?intercepts pointer events`)

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// --------------------------------------------------------- capabilities
// Named differently from the capability interfaces, so that embedding Chat
// gives a product none of them: the product declares what it supports.

// Trigger clicks the suite's trigger for real and, when the suite asks,
// commits the message the product drafted. Chat products scroll the
// conversation as turns arrive, so the app is brought into view and its
// position allowed to settle before the click, and a click that did not
// reach the button (the layout moved under it) is tried again.
func (c *Chat) Trigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if req.CommitDraftedMessage {
		c.composerBefore, _ = c.ComposerText()
	}
	var r protocol.Result
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		c.settleApp(ctx)
		c.input.Lock()
		r, err = c.Click(ctx)
		c.input.Unlock()
		if err != nil || r.OK {
			break
		}
		c.logf("%s: the trigger click missed (%s); trying again", c.Profile.Product, r.Error)
	}
	if err != nil || !r.OK || !req.CommitDraftedMessage {
		return r, err
	}
	c.input.Lock()
	err = c.hooks.CommitMessage(ctx, c)
	c.input.Unlock()
	if err != nil {
		return protocol.Result{OK: false, Error: "committing the drafted message: " + err.Error()}, nil
	}
	return r, nil
}

// settleApp scrolls the page so that the suite's trigger button is in view
// (chat products keep the conversation scrolled to its newest turn, which
// can push a tall app's trigger out of sight or under the composer), then
// waits up to 2 s for the app to hold still for 100 ms. Only the host page
// is scrolled: nothing runs in the app's frames.
func (c *Chat) settleApp(ctx context.Context) {
	if c.Suite == nil {
		return
	}
	view := c.Suite.Frame()
	outer := view
	for outer.ParentFrame() != nil && outer.ParentFrame().ParentFrame() != nil {
		outer = outer.ParentFrame()
	}
	outerEl, err := outer.FrameElement()
	if err != nil {
		return
	}
	viewEl, err := view.FrameElement()
	if err != nil {
		return
	}
	ti, err := c.Suite.Trigger(ctx)
	ob, err1 := outerEl.BoundingBox()
	vb, err2 := viewEl.BoundingBox()
	if err == nil && err1 == nil && err2 == nil && ob != nil && vb != nil {
		dy := vb.Y - ob.Y + ti.Y + ti.Height/2
		if _, err := outerEl.Evaluate(scrollToPoint, dy); err != nil {
			c.logf("%s: scrolling the app into view: %v", c.Profile.Product, firstLine(err))
		}
	}
	var last *playwright.Rect
	c.waitFor(ctx, 2*time.Second, func() (bool, error) {
		box, err := outerEl.BoundingBox()
		if err != nil || box == nil {
			return false, nil
		}
		same := last != nil && *last == *box
		last = box
		return same, nil
	}, func() error { return nil })
}

// scrollToPoint scrolls every scrolling ancestor of the iframe element, and
// the window, until the point dy pixels below the iframe's top is well
// inside each.
const scrollToPoint = `(frame, dy) => {
	const y = () => frame.getBoundingClientRect().top + dy;
	for (let el = frame.parentElement; el; el = el.parentElement) {
		if (el.scrollHeight <= el.clientHeight) continue;
		const r = el.getBoundingClientRect();
		const p = y();
		if (p < r.top + 40 || p > r.bottom - 40) el.scrollTop += p - (r.top + r.height / 3);
	}
	const p = y();
	if (p < 40 || p > innerHeight - 40) window.scrollBy(0, p - innerHeight / 3);
	return y();
}`

// Confirm accepts the product's confirmation dialog of that kind; a dialog
// the profile says the product does not show answers unsupported.
func (c *Chat) Confirm(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	field := map[protocol.Dialog]string{protocol.DialogOpenLink: "OpenLinkConfirm", protocol.DialogDownload: "DownloadConfirm", protocol.DialogSampling: "SamplingConfirm"}[req.Dialog]
	if field == "" {
		r := protocol.Unsupported(req.Kind)
		r.Error += fmt.Sprintf(" (the %s profile knows no %s dialog)", c.Profile.Product, req.Dialog)
		return r, nil
	}
	if c.Profile.Sel(field) == "" {
		r := protocol.Unsupported(req.Kind)
		r.Error += fmt.Sprintf(" (the %s profile has no %s dialog; set %s if the product shows one)", c.Profile.Product, req.Dialog, c.Profile.Var(field))
		return r, nil
	}
	c.input.Lock()
	err := c.ClickWhenVisible(c.Profile.Sel(field), 5*time.Second)
	c.input.Unlock()
	if err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no %s dialog appeared within 5s (%s): %v", req.Dialog, c.Profile.Describe(field), firstLine(err))}, nil
	}
	return protocol.Result{OK: true}, nil
}

// Conversation answers conversationContains through the product's hook.
func (c *Chat) Conversation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	ok, err := c.hooks.VerifyConversation(ctx, c, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: ok, Value: mustJSON(ok)}, nil
}

// Theme answers toggleTheme through the product's hook.
func (c *Chat) Theme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if err := c.hooks.ToggleTheme(ctx, c, req.To); err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	return protocol.Result{OK: true}, nil
}

// ResetPage closes stray tabs and dialogs, dismisses modals and restores
// the light theme between manual tests. The app is not reopened: the suite
// that asks runs inside it.
func (c *Chat) ResetPage(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	c.input.Lock()
	r, err := c.Reset(ctx)
	if err == nil && r.OK {
		if derr := c.hooks.DismissModal(ctx, c, 0); derr != nil {
			r = protocol.Result{OK: false, Error: derr.Error()}
		}
	}
	c.input.Unlock()
	if err != nil || !r.OK {
		return r, err
	}
	return c.Theme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}

// --------------------------------------------------------- default hooks

// DefaultHooks implements every hook from the profile alone. Products embed
// it and override the steps their pages do differently.
type DefaultHooks struct{}

// DismissModal clicks ModalDismiss while it is visible.
func (DefaultHooks) DismissModal(ctx context.Context, c *Chat, wait time.Duration) error {
	return c.DismissModals(ctx, wait)
}

// SendPrompt types the prompt into the composer and sends it.
func (DefaultHooks) SendPrompt(ctx context.Context, c *Chat, prompt string) error {
	if err := c.FillComposer(ctx, prompt); err != nil {
		return err
	}
	return c.SendComposer(ctx)
}

// FindApp waits for the app iframe, approving tool calls.
func (DefaultHooks) FindApp(ctx context.Context, c *Chat, timeout time.Duration) error {
	return c.WaitApp(ctx, timeout)
}

// CommitMessage commits a draft when the profile says the product drafts
// (CommitDrafts), and does nothing otherwise.
func (DefaultHooks) CommitMessage(ctx context.Context, c *Chat) error { return c.CommitDraft(ctx) }

// VerifyConversation looks for the marker in the conversation's turns.
func (DefaultHooks) VerifyConversation(ctx context.Context, c *Chat, marker string, timeout time.Duration) (bool, error) {
	return c.TurnContains(ctx, marker, timeout)
}

// ToggleTheme follows the emulated system colour scheme.
func (DefaultHooks) ToggleTheme(ctx context.Context, c *Chat, to string) error {
	return c.EmulateTheme(ctx, to)
}
