// Package mcpproxy holds what the reverse proxies between a browser's MCP
// client and the fixture server (an npm host page's /mcp; until
// 2026-12-02 the mcp-use driver's CORS front) need beyond httputil.ReverseProxy so that a
// streamed answer is never cut.
package mcpproxy

import "net/http"

// FullDuplex serves each request with proxy, the request body left
// readable while the response is written.
//
// Without it, an answer streamed back through a proxy (an MCP POST answered
// with text/event-stream) is cut now and then, more often on a loaded
// machine: the HTTP/1 server drains and closes the request body as soon as
// the handler starts the response ((*chunkWriter).writeHeader), but the
// proxy's Transport, having sent the body's Content-Length bytes upstream,
// reads the body once more to check it ends there
// (transferWriter.writeBody). When the upstream answered before that read
// (the fixture server answers within a millisecond of the last byte, and
// the Transport's writing goroutine may not run for longer than that), the
// read fails with "http: invalid Read on closed Body", the Transport
// treats the request as failed and closes the upstream connection, and the
// part of the answer not yet read from it is lost: the ReverseProxy aborts
// the response (http.ErrAbortHandler), the browser reports
// net::ERR_INCOMPLETE_CHUNKED_ENCODING, and an MCP TS SDK 1.x client never
// settles that request. Go's issues: golang/go#40747 (this cut behind a
// ReverseProxy) and golang/go#15527; the remedy they led to is
// ResponseController.EnableFullDuplex (golang/go#57786), which leaves the
// body alone until the handler returns.
func FullDuplex(proxy http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An error means a ResponseWriter without the option (HTTP/2
		// is always full duplex): nothing to do then.
		_ = http.NewResponseController(w).EnableFullDuplex()
		proxy.ServeHTTP(w, r)
	})
}
