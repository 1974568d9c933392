// Package appbridge drives a minimal MCP Apps host page built on the
// ext-apps SDK's AppBridge (@modelcontextprotocol/ext-apps/app-bridge,
// pinned to Version) the way the SDK's docs and the ext-apps repository's
// examples/basic-host use it, so that `mcpconform run --host appbridge`
// judges what every host embedding the current AppBridge inherits from it.
//
// On first use the driver installs the SDK with the MCP client it peers
// with (Also, pinned) into the npm cache (internal/npmcache), bundles the
// page (page/host.ts) against them with esbuild's Go API and serves it on
// one loopback origin and basic-host's sandbox proxy (page/sandbox.html,
// with the Content-Security-Policy header basic-host's server builds from
// the resource's _meta.ui.csp, csp.go) on another (hosts/npmpage, shared
// with hosts/mcpui).
//
// Capabilities, each something the page really does: real clicks, a theme
// toggle (AppBridge.setHostContext, which sends host-context-changed), new
// tabs from ui/open-link, the host DOM around the View, console lines,
// openTool (the page renders another call), closeView (teardownResource,
// awaited, then the bridge closed and the card removed). basic-host cannot
// stop a call, so cancelTool is absent; with no agent, conversation or
// dialogs, conversationContains, readModelToolList and confirmDialog are
// absent too, and those checks skip.
package appbridge

import (
	"embed"
	"fmt"
	"net/http"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/npmpage"
)

// Version is the @modelcontextprotocol/ext-apps release under test.
const Version = "2.0.4"

// Spec is the npm package under test; Also are the versions npm resolves
// for its peers (the MCP client, its core and zod) on 2026-12-01, pinned so
// that every run bundles the same code.
const Spec = "@modelcontextprotocol/ext-apps@" + Version

var Also = []string{
	"@modelcontextprotocol/client@2.4.0",
	"@modelcontextprotocol/core@2.4.0",
	"zod@4.6.7",
}

// pageFiles are the host page and the sandbox proxy.
//
//go:embed page/host.ts page/sandbox.html
var pageFiles embed.FS

func pageFile(name string) string {
	b, err := pageFiles.ReadFile("page/" + name)
	if err != nil {
		panic(err) // embedded above
	}
	return string(b)
}

var sandboxHTML = pageFile("sandbox.html")

// Page is the AppBridge host page with basic-host's sandbox proxy.
var Page = &npmpage.Page{
	Name: "appbridge", Version: Version, Spec: Spec, Also: Also,
	Source: pageFile("host.ts"), Sourcefile: "host.ts", Loader: api.LoaderTS,
	Title:   "ext-apps AppBridge host (mcpconform)",
	Sandbox: serveSandbox,
}

// serveSandbox serves the sandbox proxy with the CSP of its ?csp= query,
// as basic-host's serve.ts does: in a header, which the View's content
// cannot change, and never cached.
func serveSandbox(w http.ResponseWriter, r *http.Request) {
	// An unreadable query gets the default, as in basic-host.
	csp, _ := ParseCSP(r.URL.Query().Get("csp"))
	w.Header().Set("Content-Security-Policy", BuildCSP(csp))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache, no-store, must-revalidate")
	fmt.Fprint(w, sandboxHTML)
}

// Options configure the driver; the zero value is what the CLI uses.
type Options = npmpage.Options

// Host drives the AppBridge host page: the page's capabilities
// (npmpage.Host), nothing more.
type Host struct {
	*npmpage.Host
}

// init registers the host as --host appbridge (hosts/builtin imports it).
func init() { hosts.Register("appbridge", hosts.Plain(New)) }

// New returns the driver with default options.
func New() *Host { return NewWithOptions(Options{}) }

// NewWithOptions returns a driver.
func NewWithOptions(o Options) *Host { return &Host{Host: npmpage.NewHost(Page, o)} }
