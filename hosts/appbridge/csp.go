package appbridge

import (
	"encoding/json"
	"strings"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
)

// CSP is the resource's _meta.ui.csp as the host page passes it in the
// sandbox proxy's ?csp= query: the spec's four lists, and the
// wasmUnsafeEval flag basic-host also reads.
type CSP struct {
	mcpserver.CSP
	WasmUnsafeEval bool `json:"wasmUnsafeEval,omitempty"`
}

// ParseCSP reads the ?csp= query; "" is no CSP declared.
func ParseCSP(q string) (*CSP, error) {
	if q == "" {
		return nil, nil
	}
	var c CSP
	if err := json.Unmarshal([]byte(q), &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// sanitize drops entries that could break out of a source list: a
// separator, a quote (a keyword such as 'unsafe-eval') or a space (a
// second source), as basic-host's sanitizeCspDomains does.
func sanitize(domains []string) string {
	var ok []string
	for _, d := range domains {
		if !strings.ContainsAny(d, ";\r\n'\" ") {
			ok = append(ok, d)
		}
	}
	return strings.Join(ok, " ")
}

// BuildCSP is the Content-Security-Policy basic-host's sandbox server
// (examples/basic-host/src/csp.ts, buildCspHeader) sends for csp (nil: none
// declared): same-origin and inline everything, the declared resource
// domains for scripts, styles, images, fonts, media and workers, the
// declared connect domains, frame-src and base-uri only to what is
// declared (else 'none'), and object-src 'none'.
func BuildCSP(csp *CSP) string {
	if csp == nil {
		csp = &CSP{}
	}
	res := sanitize(csp.ResourceDomains)
	conn := sanitize(csp.ConnectDomains)
	frame := sanitize(csp.FrameDomains)
	base := sanitize(csp.BaseURIDomains)
	script := "'self' 'unsafe-inline' 'unsafe-eval'"
	if csp.WasmUnsafeEval {
		script += " 'wasm-unsafe-eval'"
	}
	script += " blob: data:"
	join := func(s ...string) string { return strings.TrimSpace(strings.Join(s, " ")) }
	d := []string{
		"default-src 'self' 'unsafe-inline'",
		join("script-src", script, res),
		join("style-src 'self' 'unsafe-inline' blob: data:", res),
		join("img-src 'self' data: blob:", res),
		join("font-src 'self' data: blob:", res),
		join("media-src 'self' data: blob:", res),
		join("connect-src 'self'", conn),
		join("worker-src 'self' blob:", res),
	}
	if frame != "" {
		d = append(d, "frame-src "+frame)
	} else {
		d = append(d, "frame-src 'none'")
	}
	d = append(d, "object-src 'none'")
	if base != "" {
		d = append(d, "base-uri "+base)
	} else {
		d = append(d, "base-uri 'none'")
	}
	return strings.Join(d, "; ")
}
