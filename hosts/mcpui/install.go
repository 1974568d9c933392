package mcpui

import (
	_ "embed"
	"fmt"
	"net/http"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpconform/mcpconform/hosts/npmpage"
)

// Version is the @mcp-ui/client release this driver is built on.
const Version = "7.1.1"

// Spec is the npm package under test; Also are the versions npm resolves
// for it (its React peers, the MCP SDK and the ext-apps AppBridge it
// builds on) on 2026-12-01, pinned so that every run bundles the same code.
const Spec = "@mcp-ui/client@" + Version

var Also = []string{
	"react@19.3.1",
	"react-dom@19.3.1",
	"@modelcontextprotocol/sdk@1.32.2",
	"@modelcontextprotocol/ext-apps@1.7.5",
}

//go:embed page/host.tsx
var hostTSX string

//go:embed page/sandbox.html
var sandboxHTML string

// Page is the AppRenderer host page (page/host.tsx) with mcp-ui's sandbox
// proxy (page/sandbox.html), installed into the npm cache
// (~/.cache/mcpconform/npm/@mcp-ui/client@<Version>) on first use.
var Page = &npmpage.Page{
	Name:       "mcp-ui",
	Version:    Version,
	Spec:       Spec,
	Also:       Also,
	Source:     hostTSX,
	Sourcefile: "host.tsx",
	Loader:     api.LoaderTSX,
	Title:      "mcp-ui AppRenderer host (mcpconform)",
	Sandbox: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, sandboxHTML)
	},
}
