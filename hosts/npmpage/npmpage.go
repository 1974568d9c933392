// Package npmpage is the shared part of the hosts whose page is a minimal,
// chat-less MCP Apps host built on an npm package (hosts/mcpui on mcp-ui's
// AppRenderer, hosts/appbridge on the ext-apps AppBridge): the pinned
// install into the npm cache (internal/npmcache), the esbuild bundle of the
// page against it, the two loopback origins (the page with its /mcp, a
// reverse proxy to the fixture server, and the sandbox proxy) and the
// browser driver of the page's conventions (Host).
//
// A page built for this package follows these conventions, which Host
// relies on:
//
//   - it reads its configuration from window.__hostConfig (Config);
//   - it marks its MCP connection with an element [data-status] whose value
//     is "connecting", "connected" or "error";
//   - every tool call it renders is a <section data-view=ID> (the call the
//     page URL names has ID "suite") holding the sandbox proxy's iframe,
//     which holds the View's, and a button[data-action="close"] that tears
//     the View down and removes the section; a failed call shows an
//     element [data-error] in its section;
//   - window.pageHost.call(tool, args) renders one more call and returns
//     its ID;
//   - a button[data-action="theme"] toggles <html data-theme> between
//     "light" and "dark" and tells every View.
package npmpage

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/tsbundle"
)

// Page is one npm-built host page.
type Page struct {
	// Name is the host's name in messages ("mcp-ui").
	Name string
	// Version is the version of the package under test, for messages.
	Version string
	// Spec is the npm package under test; Also the exact versions of its
	// companions (peers, the SDK) installed with it.
	Spec string
	Also []string
	// Source is the page's entry (TypeScript or TSX), Sourcefile its name
	// in messages and Loader how esbuild reads it.
	Source     string
	Sourcefile string
	Loader     api.Loader
	// Title is the page's <title>.
	Title string
	// Sandbox serves the sandbox proxy at GET /sandbox on the second
	// origin.
	Sandbox func(w http.ResponseWriter, r *http.Request)
}

// Install installs Spec with Also into the npm cache on first use
// (internal/npmcache: ~/.cache/mcpconform/npm/<Spec>, or dir) and returns
// the install prefix. node is the Node.js next to which npm is looked for
// when it is not on PATH.
func (p *Page) Install(ctx context.Context, dir, node string, logf func(string, ...any)) (string, error) {
	return npmcache.EnsureWith(ctx, p.Spec, p.Options(dir, node, logf))
}

// Options are the npmcache options of Install.
func (p *Page) Options(dir, node string, logf func(string, ...any)) npmcache.Options {
	return npmcache.Options{Dir: dir, Node: node, Also: p.Also, Logf: logf}
}

var bundles = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// JS bundles the page's Source against the packages in prefix with
// esbuild's Go API (one IIFE script; cached per page and prefix for the
// process).
func (p *Page) JS(prefix string) (string, error) {
	bundles.Lock()
	defer bundles.Unlock()
	key := p.Sourcefile + "\x00" + prefix
	if js, ok := bundles.m[key]; ok {
		return js, nil
	}
	res := api.Build(api.BuildOptions{
		Stdin: &api.StdinOptions{
			Contents:   p.Source,
			ResolveDir: prefix,
			Sourcefile: p.Sourcefile,
			Loader:     p.Loader,
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
	js, err := tsbundle.Output(res, "the "+p.Name+" host page from "+prefix)
	if err != nil {
		return "", err
	}
	js = strings.ReplaceAll(js, "</script", `<\/script`)
	bundles.m[key] = js
	return js, nil
}

// Config is what the host page reads from window.__hostConfig.
type Config struct {
	MCP     string         `json:"mcp"`
	Sandbox string         `json:"sandbox"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args"`
}

// ConfigVar is the global the page reads its Config from.
const ConfigVar = "window.__hostConfig"

// HTML is the host page for one configuration.
func HTML(title, js string, cfg Config) string {
	c, _ := json.Marshal(cfg)
	cs := strings.ReplaceAll(string(c), "</", `<\/`)
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\" data-theme=\"light\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + title + "</title>\n")
	b.WriteString("<style>html[data-theme=dark]{background:#111;color:#eee}body{font-family:sans-serif;margin:8px}</style>\n</head>\n<body>\n<div id=\"root\"></div>\n")
	b.WriteString("<script>" + ConfigVar + " = " + cs + ";</script>\n<script>\n")
	b.WriteString(js)
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.String()
}
