package browser_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

// The browser reaches loopback, and every other destination is refused by
// the guard proxy before it leaves the machine (the error names the proxy,
// so this test itself sends nothing off loopback even if the guard broke:
// .invalid names never resolve).
func TestBrowserReachesOnlyLoopback(t *testing.T) {
	checkGuard(t, launch(t, browser.Options{}))
}
