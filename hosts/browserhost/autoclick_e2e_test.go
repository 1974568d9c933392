package browserhost_test

import (
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/internal/testkit/prompttest"
)

// While AutoDispatch answers a prompt that keeps coming back, every one of
// the driver's own clicks on the page reaches its button. Answered with
// the mouse (AutoClick without a shared lock), 2 and 3 of 60 driver clicks
// were swallowed in two runs, each reported done: the two actions'
// hit-target checks block each other's mouse events. 150 clicks make a
// run without a loss under AutoClick unlikely (about 0.2 %).
func TestAutoDispatchNeverSwallowsTheDriversClicks(t *testing.T) {
	b := openBase(t)
	url := serve(t, "127.0.0.1", prompttest.Page(0, 0))
	if _, err := b.Page.Goto(url); err != nil {
		t.Fatal(err)
	}
	stopAnswering := browserhost.AutoDispatch(b.Page.Locator("#allow"), time.Millisecond, nil)
	const n = 150
	for i := 0; i < n; i++ {
		if err := b.Page.Locator("#halt").Click(playwright.LocatorClickOptions{Timeout: playwright.Float(5000)}); err != nil {
			stopAnswering()
			t.Fatal(err)
		}
	}
	stopAnswering()
	prompttest.Check(t, b.Page, n, 5, "the driver, AutoDispatch answering")
}
