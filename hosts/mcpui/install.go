package mcpui

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/tsbundle"
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

// Install installs Spec with Also into the npm cache on first use
// (internal/npmcache: ~/.cache/mcpconform/npm/@mcp-ui/client@<Version>) and
// returns the install prefix. node is the Node.js next to which npm is
// looked for when it is not on PATH.
func Install(ctx context.Context, dir, node string, logf func(string, ...any)) (string, error) {
	return npmcache.EnsureWith(ctx, Spec, npmcache.Options{Dir: dir, Node: node, Also: Also, Logf: logf})
}

var bundles = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// pageJS bundles page/host.tsx against the packages in prefix with
// esbuild's Go API (one IIFE script; cached per prefix for the process).
func pageJS(prefix string) (string, error) {
	bundles.Lock()
	defer bundles.Unlock()
	if js, ok := bundles.m[prefix]; ok {
		return js, nil
	}
	res := api.Build(api.BuildOptions{
		Stdin: &api.StdinOptions{
			Contents:   hostTSX,
			ResolveDir: prefix,
			Sourcefile: "host.tsx",
			Loader:     api.LoaderTSX,
		},
		Bundle:            true,
		Write:             false,
		Format:            api.FormatIIFE,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2020,
		Charset:           api.CharsetUTF8,
		JSX:               api.JSXAutomatic,
		MinifyWhitespace:  true,
		MinifySyntax:      true,
		LogLevel:          api.LogLevelSilent,
		Define:            map[string]string{"process.env.NODE_ENV": `"production"`},
		AbsWorkingDir:     prefix,
		NodePaths:         []string{npmcache.Modules(prefix)},
		MinifyIdentifiers: false,
	})
	js, err := tsbundle.Output(res, "the mcp-ui host page from "+prefix)
	if err != nil {
		return "", err
	}
	js = strings.ReplaceAll(js, "</script", `<\/script`)
	bundles.m[prefix] = js
	return js, nil
}

// pageConfig is what the host page reads from window.__mcpuiConfig.
type pageConfig struct {
	MCP     string         `json:"mcp"`
	Sandbox string         `json:"sandbox"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
}

// pageHTML is the host page for one configuration.
func pageHTML(js string, cfg pageConfig) string {
	c, _ := json.Marshal(cfg)
	cs := strings.ReplaceAll(string(c), "</", `<\/`)
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mcp-ui AppRenderer host (mcpconform)</title>\n")
	b.WriteString("<style>html[data-theme=dark]{background:#111;color:#eee}body{font-family:sans-serif;margin:8px}</style>\n</head>\n<body>\n<div id=\"root\"></div>\n")
	b.WriteString("<script>window.__mcpuiConfig = " + cs + ";</script>\n<script>\n")
	b.WriteString(js)
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.String()
}
