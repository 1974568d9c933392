package browserhost

import (
	"fmt"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/protocol"
)

// ToggleScheme clicks a host's own theme control (the selector toggle) on
// page until scheme, a JavaScript expression for the page's current scheme
// ("light", "dark"), is to: at most three clicks, each followed by a
// condition wait for the scheme to change. A control that does not change
// it, or never reaches to, is a failed Result saying so.
func ToggleScheme(page playwright.Page, toggle, scheme, to string) (protocol.Result, error) {
	return PressUntilScheme(page, func() error {
		return page.Locator(toggle).First().Click(playwright.LocatorClickOptions{Timeout: playwright.Float(float64(ControlWait.Milliseconds()))})
	}, "the host's theme control "+toggle, scheme, to)
}

// PressUntilScheme is ToggleScheme with the press of the control given
// (what, for messages): a page whose layout moves under a mouse click
// presses its own controls another way.
func PressUntilScheme(page playwright.Page, press func() error, what, scheme, to string) (protocol.Result, error) {
	read := "() => String(" + scheme + " ?? \"\")"
	for i := 0; i < 3; i++ {
		v, err := page.Evaluate(read)
		if err != nil {
			return protocol.Result{}, err
		}
		cur, _ := v.(string)
		if cur == to {
			return protocol.Result{OK: true}, nil
		}
		if err := press(); err != nil {
			return protocol.Result{}, fmt.Errorf("clicking %s: %w", what, err)
		}
		// The host's reaction to its own control; when it never comes, the
		// theme check has no change to judge (SKIP), so the wait is as
		// generous as the press's.
		if _, err := page.WaitForFunction("(was) => String("+scheme+" ?? \"\") !== was", cur,
			playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(float64(ControlWait.Milliseconds()))}); err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("the theme control did not change the scheme from %q: %v", cur, FirstLine(err))}, nil
		}
	}
	return protocol.Result{OK: false, Error: "the theme control did not reach " + to}, nil
}
