package reference_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/reference"
)

// appTraffic counts, on page, the View requests the page forwards to its
// backend by POST /api/app and the messages it sends on its app socket.
func appTraffic(page playwright.Page) (posts, frames *atomic.Int64) {
	posts, frames = new(atomic.Int64), new(atomic.Int64)
	page.OnRequest(func(r playwright.Request) {
		if r.Method() == "POST" && strings.HasSuffix(r.URL(), "/api/app") {
			posts.Add(1)
		}
	})
	page.OnWebSocket(func(ws playwright.WebSocket) {
		if strings.HasSuffix(ws.URL(), "/api/app/socket") {
			ws.OnFrameSent(func([]byte) { frames.Add(1) })
		}
	})
	return posts, frames
}

// seen waits up to 10 s for c to count something and returns it: the
// driver delivers the page's request and WebSocket events on its own
// goroutine, and on a loaded machine they came after the server had the
// View's call (both tests read 0 in a CI run, though the page had sent).
func seen(c *atomic.Int64) int64 {
	for deadline := time.Now().Add(10 * time.Second); c.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	return c.Load()
}

// A View's tools/call reaches its server over the page's app socket, not
// one fetch per call (the relay bridge's round trip: docs/performance.md).
func TestViewCallsTravelOnTheAppSocket(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page, _ := openHostWith(t, ctx, playwright.BrowserNewContextOptions{}, reference.ServerOptions{}, "")
	posts, frames := appTraffic(page)
	openProbe(t, page, "socket-"+nonce(), 0) // its View reports tool-input by tools/call
	if n := seen(frames); n == 0 {
		t.Error("the View's tools/call reached the server, but the page sent nothing on its app socket")
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("the page forwarded %d View requests by POST /api/app although its app socket was open", n)
	}
}

// Where the socket cannot open (a proxy that refuses the upgrade; here a
// WebSocket that always fails), the page forwards the same requests by
// POST /api/app and the View's calls still reach the server.
func TestViewCallsFallBackToPostWithoutTheSocket(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	failing := `window.WebSocket = class extends EventTarget {
	  static OPEN = 1;
	  readyState = 3;
	  constructor() { super(); setTimeout(() => { this.onerror?.(new Event("error")); this.onclose?.(new Event("close")); }, 0); }
	  send() { throw new Error("closed"); }
	  close() {}
	};`
	page, _ := openHostWith(t, ctx, playwright.BrowserNewContextOptions{}, reference.ServerOptions{}, failing)
	posts, frames := appTraffic(page)
	openProbe(t, page, "nosocket-"+nonce(), 0)
	if n := seen(posts); n == 0 {
		t.Error("the View's tools/call reached the server with no POST /api/app, although the page's WebSocket always fails")
	}
	if n := frames.Load(); n != 0 {
		t.Errorf("%d messages on an app socket that cannot open", n)
	}
}
