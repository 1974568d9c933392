package bridge_test

import (
	"net"
	"net/http"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// The browser tests skip by name where no Chromium is found (and fail with
// MCPCONFORM_REQUIRE_BROWSER=1), as in every other package: see e2etest.
func TestMain(m *testing.M) { e2etest.Main(m) }

// launch starts a browser for the test with o, closed when the test ends;
// without Chromium the test skips (see e2etest.Require).
func launch(t *testing.T, o browser.Options) *browser.Browser {
	t.Helper()
	e2etest.Require(t)
	br, err := browser.Launch(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	return br
}

// serveLoopback serves h on a loopback port until the test ends and
// returns the listener.
func serveLoopback(t *testing.T, h http.HandlerFunc) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln
}
