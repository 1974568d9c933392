package browserhost

import (
	"strings"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/internal/wiretrace"
)

// traceMCP logs the context's MCP requests (any URL with /mcp in it) as
// the browser saw them, and every console line, into the wire trace.
func traceMCP(c playwright.BrowserContext) {
	if !wiretrace.On() {
		return
	}
	mcp := func(r playwright.Request) bool { return strings.Contains(r.URL(), "/mcp") }
	body := func(r playwright.Request) string {
		b, _ := r.PostData()
		if len(b) > 120 {
			b = b[:120]
		}
		return b
	}
	c.OnRequest(func(r playwright.Request) {
		if mcp(r) {
			wiretrace.Logf("browser request %s %s %s", r.Method(), r.URL(), body(r))
		}
	})
	c.OnResponse(func(r playwright.Response) {
		if mcp(r.Request()) {
			wiretrace.Logf("browser response %d %s %s %s", r.Status(), r.Request().Method(), r.URL(), body(r.Request()))
		}
	})
	c.OnRequestFinished(func(r playwright.Request) {
		if mcp(r) {
			wiretrace.Logf("browser finished %s %s %s", r.Method(), r.URL(), body(r))
		}
	})
	c.OnRequestFailed(func(r playwright.Request) {
		if mcp(r) {
			wiretrace.Logf("browser FAILED %s %s %v %s", r.Method(), r.URL(), r.Failure(), body(r))
		}
	})
	c.OnConsole(func(m playwright.ConsoleMessage) {
		wiretrace.Logf("browser console %s: %s", m.Type(), m.Text())
	})
}
