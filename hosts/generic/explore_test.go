package generic

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/inspector"
)

func TestExplore(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	br, err := bridge.Launch(bridge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	env := hosts.Env{Browser: br, ServerURL: fx.Main.URL, Logf: t.Logf}
	u, tok, stop, err := inspector.StartInstance(ctx, env, inspector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, _ := br.NewContext(playwright.BrowserNewContextOptions{})
	p, _ := c.NewPage()
	deep := u + "/?serverUrl=" + fx.Main.URL + "&transport=http&autoConnect=" + tok + "&openApp=conformance_suite"
	t.Log(deep)
	if _, err := p.Goto(deep); err != nil {
		t.Fatal(err)
	}
	p.Locator(`[data-testid="connection-status"][data-status="connected"]`).WaitFor()
	time.Sleep(3 * time.Second)
	html, _ := p.Locator(`[data-testid="apps-form"]`).InnerHTML()
	os.WriteFile("/tmp/appsform.html", []byte(html), 0o644)
	p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String("/tmp/insp1.png"), FullPage: playwright.Bool(true)})
	body, _ := p.Locator("body").InnerHTML()
	os.WriteFile("/tmp/body.html", []byte(body), 0o644)
	fmt.Println("done")
}
