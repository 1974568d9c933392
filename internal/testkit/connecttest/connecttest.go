// Package connecttest plays the person at the far end of a --host connect
// run in tests: someone using a host that the run never drives (the
// reference host's page, in a browser context of its own), connected to
// the URLs the run printed, who asks for the suite and does what the
// operator's prompts ask.
package connecttest

import (
	"context"
	"strings"
	"testing"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/operator"
)

// Person is the user of the connected host.
type Person struct {
	Page playwright.Page
	srv  *reference.Server
}

// NewPerson serves the reference host connected to serverURLs and opens
// it in a new context of b; both close when the test ends.
func NewPerson(t testing.TB, b *browser.Browser, serverURLs ...string) *Person {
	t.Helper()
	srv, err := reference.NewServer(context.Background(), reference.ServerOptions{MCPServers: serverURLs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	bctx, page, err := b.NewPageWith(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 900}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bctx.Close() })
	return &Person{Page: page, srv: srv}
}

// AskForTheSuite does what the instructions say: open the host, ask for
// conformance_suite.
func (p *Person) AskForTheSuite() error {
	if _, err := p.Page.Goto(p.srv.HostURL + "/"); err != nil {
		return err
	}
	if err := p.Page.Locator(`[data-testid="composer"]`).Fill(reference.Prompt); err != nil {
		return err
	}
	return p.Page.Locator(`[data-testid="send"]`).Click()
}

// ClickTrigger clicks the View's trigger button, as the operator is asked.
func (p *Person) ClickTrigger() error {
	return p.Page.FrameLocator(`iframe[data-testid="app-frame"]`).FrameLocator("iframe").
		GetByText(operator.TriggerLabel).Click(playwright.LocatorClickOptions{Timeout: playwright.Float(10000)})
}

// LooksForMarker waits (10 s at most, as a person would look) until the
// conversation shows marker.
func (p *Person) LooksForMarker(marker string) error {
	return p.Page.Locator(`[data-testid="conversation"]`).Filter(playwright.LocatorFilterOptions{HasText: marker}).
		WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(10000)})
}

// NewPrompt is the operator's latest prompt on screen when it is complete
// (ends in its "> ") and is not among the seen already asked; n is the
// number of prompts seen with it.
func NewPrompt(screen string, seen int) (prompt string, n int, ok bool) {
	prompts := strings.Split(screen, "[operator ")
	n = len(prompts) - 1
	if n <= seen || !strings.Contains(prompts[n], "> ") {
		return "", seen, false
	}
	return prompts[n], n, true
}

// Marker is the marker a conversationContains prompt asks about.
func Marker(prompt string) string {
	i, j := strings.Index(prompt, `show "`), strings.Index(prompt, `"?`)
	return prompt[i+len(`show "`) : j]
}
