package session

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/protocol"
)

// Catalogue loads the suite on a bare loopback page (no host) and asks it
// for its tests, so the list always matches what `run` would run.
func Catalogue(ctx context.Context, paths bridge.Paths) (protocol.SuiteList, error) {
	var list protocol.SuiteList
	html, err := suite.HTML()
	if err != nil {
		return list, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return list, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, html)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	br, err := bridge.Launch(bridge.Options{Paths: paths})
	if err != nil {
		return list, err
	}
	defer br.Close()
	bctx, err := br.NewContext(playwright.BrowserNewContextOptions{})
	if err != nil {
		return list, err
	}
	defer bctx.Close()
	page, err := bctx.NewPage()
	if err != nil {
		return list, err
	}
	if _, err := page.Goto("http://" + ln.Addr().String() + "/"); err != nil {
		return list, err
	}
	ev := bridge.NewEvaluator(bctx, page.MainFrame(), "true")
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = ev.EvalInto(c, "globalThis."+protocol.ChannelName+".listTests()", &list)
	return list, err
}
