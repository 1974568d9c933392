package reference

import (
	"embed"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/internal/tsbundle"
)

//go:embed web/*.ts web/*.css
var web embed.FS

var (
	bundles   sync.Map // entry -> *bundle
	styleOnce sync.Once
	style     string
)

type bundle struct {
	once sync.Once
	js   string
	err  error
}

func script(entry string) (string, error) {
	v, _ := bundles.LoadOrStore(entry, &bundle{})
	b := v.(*bundle)
	b.once.Do(func() {
		b.js, b.err = tsbundle.JS(tsbundle.Options{FS: web, Entry: entry})
		b.js = strings.ReplaceAll(b.js, "</script", `<\/script`)
	})
	return b.js, b.err
}

// page builds an HTML document around a bundled entry, with a JSON config
// object the script reads from #config.
func page(title, entry, bodyClass string, config any, withStyle bool) (string, error) {
	js, err := script(entry)
	if err != nil {
		return "", err
	}
	cfg, _ := json.Marshal(config)
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	b.WriteString(title)
	b.WriteString("</title>\n")
	if withStyle {
		styleOnce.Do(func() {
			css, _ := web.ReadFile("web/host.css")
			style = string(css)
		})
		b.WriteString("<style>\n" + style + "</style>\n")
	}
	b.WriteString("</head>\n<body class=\"" + bodyClass + "\">\n<script type=\"application/json\" id=\"config\">")
	b.WriteString(strings.ReplaceAll(string(cfg), "<", `\u003c`))
	b.WriteString("</script>\n<script>\n")
	b.WriteString(js)
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.String(), nil
}

func hostPage(sandboxURL string, defects, variations []string) (string, error) {
	if defects == nil {
		defects = []string{}
	}
	if variations == nil {
		variations = []string{}
	}
	return page("mcpconform reference host", "web/host.ts", "theme-light", map[string]any{
		"defects":    defects,
		"variations": variations,
		"sandboxURL": sandboxURL + "/sandbox",
		"hostName":   "mcpconform-reference",
		"version":    Version,
	}, true)
}

// sandboxPage is the proxy; a non-empty metaCSP is the View's policy, for
// the proxy to put into the View's srcdoc as a <meta> (variation csp-meta);
// defects are the proxy's own (proxyDefects).
func sandboxPage(hostURL, metaCSP string, defects []string) (string, error) {
	if defects == nil {
		defects = []string{}
	}
	return page("sandbox", "web/sandbox.ts", "", map[string]any{"hostOrigin": hostURL, "metaCSP": metaCSP, "defects": defects}, false)
}

// proxyDefects are the defects the sandbox proxy page acts on.
var proxyDefects = []string{"no-proxy-ready", "resource-before-proxy-ready", "proxy-synthesises-ping"}
