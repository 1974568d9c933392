// Package webchat is the shared driver of hosted chat products (ChatGPT,
// Claude) that render MCP Apps: a browserhost.Base that logs in from a
// Playwright storage state, asks the model to call the suite tool, finds
// the app, and answers the runner's capability requests. What differs
// between products is split in two:
//
//   - data, in a Profile: URLs, selectors, prompt, timeouts, each
//     overridable by MCPCONFORM_<PRODUCT>_* without a rebuild;
//   - steps, in Hooks: how to enter a prompt, dismiss a modal, find the
//     app, commit a drafted message, verify a conversation turn, toggle
//     the theme. Each hook is optional; a nil one runs the default, which
//     drives the page from the profile alone.
//
// A product package supplies its Profile and Hooks to Register and wraps
// *Chat in its own Host type; Chat has the capability methods (caps.go), the building
// blocks hooks are written with (blocks.go), the login profile (login.go)
// and the storage state (storage.go).
package webchat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
)

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
	hooks   Hooks // every field set: New fills in the defaults
	// composerBefore is the composer's text just before a trigger click
	// that may draft a message.
	composerBefore string
	getenv         func(string) string
	logf           func(string, ...any)

	// The approval watcher (see watchApprovals). input serialises its
	// clicks with the capabilities' page input, so that two mouse
	// sequences never interleave.
	stopWatch func()
	input     sync.Mutex
}

// New returns a driver for the product described by builtin, with its
// hooks (nil ones run the defaults).
func New(builtin Profile, h Hooks, o Options) *Chat {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return &Chat{Base: &browserhost.Base{}, builtin: builtin, hooks: h.withDefaults(), getenv: o.Getenv, logf: func(string, ...any) {}}
}

// Register makes a product's driver known as --host <Product> (a
// product package calls it when its package variables are initialised;
// hosts/builtin imports the package) and returns its constructors, which
// the product package exports as its New and NewWithOptions: one
// configured from the environment, one with o. A product differs from
// another only by its profile and its hooks.
func Register(profile func() Profile, h Hooks) (newDefault func() *Chat, newWith func(Options) *Chat) {
	newWith = func(o Options) *Chat { return New(profile(), h, o) }
	newDefault = func() *Chat { return newWith(Options{}) }
	hosts.Register(profile().Product, func(p hosts.Params) (hosts.Host, error) {
		if err := p.Unaltered(); err != nil {
			return nil, err
		}
		return newWith(Options{Getenv: p.Getenv}), nil
	})
	return newDefault, newWith
}

// AppTimeout is the app's default wait on a hosted product
// (hosts.AppWaiter): a model composes the answer that shows it.
func (c *Chat) AppTimeout() time.Duration { return 90 * time.Second }

// Builtin is the product's built-in profile (before the environment).
func (c *Chat) Builtin() Profile { return c.builtin }

// Name is the product's host name (Profile.Product).
func (c *Chat) Name() string { return c.builtin.Product }

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
// waits for its app to show (the runner binds to it). Every failure names
// the variable that controls the step.
func (c *Chat) Setup(ctx context.Context, env hosts.Env) error {
	if env.Logf != nil {
		c.logf = env.Logf
	}
	p, err := LoadProfile(c.builtin, c.getenv)
	if err != nil {
		return err
	}
	c.Profile = p
	c.logf("%s: this driver is experimental: its selectors and steps follow public descriptions of %s and are tested against a local imitation, not the live product (see docs/hosted.md)", p.Product, p.DisplayName)
	if p.StorageState == "" || p.StorageState == None {
		return fmt.Errorf("%w: %s is not set or empty: %s needs a logged-in session. Run `mcpconform login --host %s --out FILE` and set %s to FILE's path (in CI, write the secret to a file first; see docs/hosted.md)",
			ErrNoStorageState, p.Var("StorageState"), p.DisplayName, p.Product, p.Var("StorageState"))
	}
	st, err := LoadStorageState(p.StorageState, c.logf)
	if err != nil {
		return fmt.Errorf("%w (from %s)", err, p.Var("StorageState"))
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
		return st.RedactErr(err)
	}
	c.Page.SetDefaultTimeout(float64(p.PageTimeout.Milliseconds()))
	if err := c.checkSelectors(); err != nil {
		return err
	}
	if err := c.openConversation(ctx); err != nil {
		return st.RedactErr(err)
	}
	if err := c.hooks.DismissModal(ctx, c, p.ModalWait); err != nil {
		return err
	}
	if err := c.hooks.SendPrompt(ctx, c, p.ExpandedPrompt()); err != nil {
		return err
	}
	if err := c.hooks.FindApp(ctx, c, env.AppTimeout); err != nil {
		return err
	}
	c.watchApprovals()
	return nil
}

// Teardown stops the approval watcher and closes the browser context.
func (c *Chat) Teardown(ctx context.Context) error {
	if c.stopWatch != nil {
		c.stopWatch()
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
	c.stopWatch = browserhost.AutoClick(c.Page.Locator(sel), 250*time.Millisecond, &c.input, func() {
		c.logf("%s: approved a tool call the model made during the run", c.Profile.Product)
	})
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
			errs = append(errs, fmt.Errorf("%s is not a valid selector: %v", name, browserhost.FirstLine(err)))
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
			p.DisplayName, p.PageTimeout, p.Describe("Composer"), c.Page.URL(), browserhost.FirstLine(err))
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
