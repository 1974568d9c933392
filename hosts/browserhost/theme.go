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
		if err := page.Locator(toggle).First().Click(playwright.LocatorClickOptions{Timeout: playwright.Float(5000)}); err != nil {
			return protocol.Result{}, fmt.Errorf("clicking the host's theme control %s: %w", toggle, err)
		}
		if _, err := page.WaitForFunction("(was) => String("+scheme+" ?? \"\") !== was", cur,
			playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(5000)}); err != nil {
			return protocol.Result{OK: false, Error: fmt.Sprintf("the theme control did not change the scheme from %q: %v", cur, FirstLine(err))}, nil
		}
	}
	return protocol.Result{OK: false, Error: "the theme control did not reach " + to}, nil
}
