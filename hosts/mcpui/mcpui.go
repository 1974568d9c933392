// Package mcpui drives a minimal MCP Apps host page built on mcp-ui's
// AppRenderer (@mcp-ui/client, pinned to Version; React, on the ext-apps
// AppBridge), the component many real hosts (Goose, LibreChat, Nanobot, …)
// render MCP Apps with, so that `mcpconform run --host mcp-ui` judges
// AppRenderer's host side.
//
// On first use the driver installs @mcp-ui/client with the versions of its
// peers pinned (Also) into the npm cache (internal/npmcache), bundles its
// host page (page/host.tsx) against them with esbuild's Go API, and serves
// the page on one loopback origin and the sandbox proxy (page/sandbox.html,
// the behaviour of the proxy mcp-ui ships) on another (hosts/npmpage, which
// hosts/appbridge shares). The page connects
// an MCP client to the fixture server over Streamable HTTP (through the
// page's own /mcp, a reverse proxy), calls the suite's tool and renders
// AppRenderer for it as mcp-ui's docs show.
//
// Capabilities, each something the page really does: real clicks, a theme
// toggle (hostContext.theme), new tabs from ui/open-link, the host DOM
// around the View, console lines, openTool (the page renders another
// call's card), closeView (the card's Close: AppRendererHandle.
// teardownResource, then unmount) and cancelTool (the card's Stop: abort
// the call, AppRenderer's toolCancelled). It has no agent, no conversation
// and no dialogs, so conversationContains, readModelToolList and
// confirmDialog are absent and those checks skip.
package mcpui

import (
	"context"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/hosts/npmpage"
	"github.com/mcpconform/mcpconform/protocol"
)

// Options configure the driver; the zero value is what the CLI uses.
type Options = npmpage.Options

// Host drives the mcp-ui AppRenderer host page in a browser: the page's
// common capabilities (npmpage.Host) and Stop.
type Host struct {
	*npmpage.Host
}

// init registers the host as --host mcp-ui (hosts/builtin imports it).
func init() { hosts.Register("mcp-ui", hosts.Plain(New)) }

// New returns the driver with default options.
func New() *Host { return NewWithOptions(Options{}) }

// NewWithOptions returns a driver.
func NewWithOptions(o Options) *Host { return &Host{Host: npmpage.NewHost(Page, o)} }

// CancelTool presses Stop on the card whose View displays req.Marker: the
// page aborts its tools/call and sets AppRenderer's toolCancelled.
func (h *Host) CancelTool(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	card, err := h.CardShowing(req.Marker)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	// A card above can still change its height (size-changed) while the
	// click is on its way; the page disables Stop once it has stopped the
	// call, so a click lost to a layout shift is tried again.
	stop := h.Page.Locator(card + ` button[data-action="stop"]`)
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		if err := stop.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(3000)}); err != nil {
			last = err
			continue
		}
		if _, last = h.Page.WaitForFunction(`(sel) => document.querySelector(sel)?.disabled === true`, card+` button[data-action="stop"]`,
			playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(2000)}); last == nil {
			return protocol.Result{OK: true}, nil
		}
	}
	return protocol.Result{OK: false, Error: "could not press Stop: " + browserhost.FirstLine(last)}, nil
}
