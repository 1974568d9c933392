// Package tsbundle bundles TypeScript sources embedded in the binary into one
// self-contained HTML document with esbuild's Go API, so that building
// mcpconform needs no Node toolchain and no generated file is committed.
package tsbundle

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Options describes one bundle.
type Options struct {
	FS    fs.FS  // the sources
	Entry string // entry file inside FS, e.g. "main.ts"
	// Modules maps bare import specifiers to source text, e.g.
	// "@mcpconform/protocol" to protocol.TS, for files that live in another
	// Go package and so cannot be embedded next to the entry.
	Modules map[string]string
	Title   string // <title> of the HTML document
	Head    string // extra markup for <head> (styles)
	Body    string // markup for <body> before the script
}

const ns = "mcpconform-embed"

// JS bundles Options.Entry into one IIFE script.
func JS(o Options) (string, error) {
	plugin := api.Plugin{
		Name: "embedded-fs",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				if _, ok := o.Modules[a.Path]; ok {
					return api.OnResolveResult{Path: "module:" + a.Path, Namespace: ns}, nil
				}
				p := a.Path
				if a.Kind != api.ResolveEntryPoint {
					if !strings.HasPrefix(p, ".") {
						return api.OnResolveResult{}, fmt.Errorf("import %q: only relative imports and %v are embedded", p, keys(o.Modules))
					}
					p = path.Join(path.Dir(strings.TrimPrefix(a.Importer, "file:")), p)
				}
				p = path.Clean(p)
				for _, cand := range []string{p, p + ".ts", p + "/index.ts"} {
					if st, err := fs.Stat(o.FS, cand); err == nil && !st.IsDir() {
						return api.OnResolveResult{Path: "file:" + cand, Namespace: ns}, nil
					}
				}
				return api.OnResolveResult{}, fmt.Errorf("cannot resolve %q from %q", a.Path, a.Importer)
			})
			b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: ns}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				var src string
				if name, ok := strings.CutPrefix(a.Path, "module:"); ok {
					src = o.Modules[name]
				} else {
					b, err := fs.ReadFile(o.FS, strings.TrimPrefix(a.Path, "file:"))
					if err != nil {
						return api.OnLoadResult{}, err
					}
					src = string(b)
				}
				return api.OnLoadResult{Contents: &src, Loader: api.LoaderTS}, nil
			})
		},
	}
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{o.Entry},
		Bundle:      true,
		Write:       false,
		Format:      api.FormatIIFE,
		Target:      api.ES2020,
		Charset:     api.CharsetUTF8,
		LogLevel:    api.LogLevelSilent,
		Plugins:     []api.Plugin{plugin},
	})
	return Output(res, o.Entry)
}

// Output is the one script a build without Write produced, or an error
// naming what was bundled with esbuild's messages.
func Output(res api.BuildResult, what string) (string, error) {
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}) {
			msgs = append(msgs, strings.TrimSpace(m))
		}
		return "", fmt.Errorf("bundling %s: %s", what, strings.Join(msgs, "\n"))
	}
	if len(res.OutputFiles) != 1 {
		return "", fmt.Errorf("bundling %s: %d output files, want 1", what, len(res.OutputFiles))
	}
	return string(res.OutputFiles[0].Contents), nil
}

// HTML bundles Options.Entry and inlines it into one HTML5 document.
func HTML(o Options) (string, error) {
	js, err := JS(o)
	if err != nil {
		return "", err
	}
	// esbuild already escapes "</script" inside strings; this guards the
	// inline script against any sequence that would still close it early.
	js = strings.ReplaceAll(js, "</script", `<\/script`)
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", o.Title)
	b.WriteString(o.Head)
	b.WriteString("\n</head>\n<body>\n")
	b.WriteString(o.Body)
	b.WriteString("\n<script>\n")
	b.WriteString(js)
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.String(), nil
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
