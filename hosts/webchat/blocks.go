package webchat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
)

// The building blocks hooks are written with: page steps on the profile's
// selector fields, each failing with a message that names the variable.

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
		return nil, fmt.Errorf("%s matched nothing visible within %s on %s: %v", c.Profile.Describe(field), timeout, c.Page.URL(), browserhost.FirstLine(err))
	}
	return l, nil
}

// ClickVisible waits for the profile's field to be visible (WaitVisible)
// and clicks it; a click that fails is an ActionError saying what was
// clicked (what: "the composer", "send").
func (c *Chat) ClickVisible(field, what string) (playwright.Locator, error) {
	l, err := c.WaitVisible(field, 0)
	if err != nil {
		return nil, err
	}
	if err := l.Click(); err != nil {
		return nil, c.ActionError("clicking "+what, field, err)
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
	composer, err := c.ClickVisible("Composer", "the composer")
	if err != nil {
		return err
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
		return fmt.Errorf("the mention picker stayed open after Enter (%s): %v", p.Describe("MentionOption"), browserhost.FirstLine(err))
	}
	return nil
}

// SendComposer clicks the send button and waits until the composer is
// empty: the message left.
func (c *Chat) SendComposer(ctx context.Context) error {
	p := c.Profile
	if _, err := c.ClickVisible("Send", "send"); err != nil {
		return err
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
	return false, fmt.Errorf("reading the conversation (%s): %v", c.Profile.Describe("Turn"), browserhost.FirstLine(err))
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
	msg := fmt.Sprintf("%s (%s): %s", what, c.Profile.Describe(field), browserhost.FirstLine(err))
	if m := intercepts.FindStringSubmatch(err.Error()); m != nil {
		msg += fmt.Sprintf("; %s covers it (a modal or banner? %s)", m[1], c.Profile.Describe("ModalDismiss"))
	}
	return errors.New(msg)
}

var intercepts = regexp.MustCompile(`(<[^\n]*?>)\s+(?:from <[^\n]*?>\s+subtree\s+)?intercepts pointer events`)
