// Package mcpproxytest checks a reverse proxy to an MCP server for the cut
// streamed answer mcpproxy.FullDuplex prevents, without timing luck.
package mcpproxytest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Build returns the proxy under test: the handler that forwards to the
// MCP endpoint upstream over rt.
type Build func(upstream *url.URL, rt http.RoundTripper) http.Handler

const (
	request = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_tool"}}`
	first   = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
	last    = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"
	// safety bounds a wait that only a broken proxy makes long; no
	// verdict depends on it.
	safety = 30 * time.Second
)

// CheckStreamKept fails t when the proxy cuts an answer streamed back to
// a POST in the one order of events that used to cut it, forced here
// rather than waited for:
//
//  1. the proxy's Transport writes the request body upstream and is held
//     (a gate in its connection) before it reads the body once more to
//     see it end;
//  2. the upstream reads the request and starts its text/event-stream
//     answer (one event), the proxy forwards the headers to the client;
//  3. the gate opens: the Transport reads the body again, and finishes
//     (or fails) writing the request;
//  4. only then does the upstream send the answer's last event and end.
//
// The client must receive the whole answer.
func CheckStreamKept(t *testing.T, build Build) {
	t.Helper()
	finish := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, err := io.ReadAll(r.Body); err != nil || string(b) != request {
			http.Error(w, "the upstream got another request body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first)
		http.NewResponseController(w).Flush()
		select {
		case <-finish:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, last)
	}))
	defer upstream.Close()
	defer closeOnce(finish)

	gate := newGate([]byte(request))
	u, _ := url.Parse(upstream.URL + "/mcp")
	proxy := build(u, gate.transport())
	wrote := make(chan error, 1)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Tells the test when the proxy's Transport is done writing
		// the request upstream, and how it ended.
		trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
			select {
			case wrote <- i.Err:
			default:
			}
		}}
		proxy.ServeHTTP(w, r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
	}))
	defer front.Close()

	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(request))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	ctx, cancel := context.WithTimeout(context.Background(), safety)
	defer cancel()
	resp, err := client.Do(req.WithContext(ctx))
	gate.open() // the client has the answer's headers: the proxy started it
	if err != nil {
		t.Fatalf("POST through the proxy: %v", err)
	}
	defer resp.Body.Close()

	var writeErr error
	select {
	case writeErr = <-wrote:
	case <-ctx.Done():
		t.Fatal("the proxy's transport never finished writing the request upstream")
	}
	if writeErr != nil {
		// The Transport closes its connection right after a failed
		// write: let it, before the upstream sends the rest.
		gate.waitClosed(ctx)
	}
	closeOnce(finish)
	got, readErr := io.ReadAll(resp.Body)
	if readErr != nil || string(got) != first+last {
		why := ""
		if writeErr != nil {
			why = fmt.Sprintf(" (the proxy's transport failed writing the request, %v, after the proxy's server had closed the request "+
				"body when the answer started, and dropped the upstream connection: golang/go#40747)", writeErr)
		}
		t.Errorf("expected the whole streamed answer through the proxy (%q then %q); observed %q and read error %v%s "+
			`[MCP transports 2025-03-26 §Sending Messages to the Server: "The server SHOULD NOT close the SSE stream before `+
			`sending all JSON-RPC responses for the received JSON-RPC requests"]`, first, last, got, readErr, why)
	}
}

// gate holds the proxy Transport's connection right after the write that
// carries the request body, until opened.
type gate struct {
	body     []byte
	opened   chan struct{}
	openOnce sync.Once
	closed   chan struct{} // closed when a gated connection is closed
	closeOne sync.Once
}

func newGate(body []byte) *gate {
	return &gate{body: body, opened: make(chan struct{}), closed: make(chan struct{})}
}

func (g *gate) open() { g.openOnce.Do(func() { close(g.opened) }) }

func (g *gate) waitClosed(ctx context.Context) {
	select {
	case <-g.closed:
	case <-ctx.Done():
	}
}

// transport is http.DefaultTransport's settings with gated connections.
func (g *gate) transport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &gatedConn{Conn: c, g: g}, nil
	}
	return t
}

type gatedConn struct {
	net.Conn
	g    *gate
	sent bytes.Buffer // what the Transport wrote so far
}

// Write passes p on, then, when what was written ends with the request
// body, waits for the gate: the bytes are upstream, the Transport's next
// step is held.
func (c *gatedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.sent.Write(p[:n])
	if err == nil && bytes.HasSuffix(c.sent.Bytes(), c.g.body) {
		<-c.g.opened
	}
	return n, err
}

func (c *gatedConn) Close() error {
	c.g.closeOne.Do(func() { close(c.g.closed) })
	return c.Conn.Close()
}

func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}
