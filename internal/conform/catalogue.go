package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/protocol"
)

// Catalogue loads the suite on a bare loopback page (no host) and asks it
// for its tests, so the list always matches what `run` would run.
func Catalogue(ctx context.Context, paths browser.Paths) (protocol.SuiteList, error) {
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
	br, err := browser.Launch(browser.Options{Paths: paths})
	if err != nil {
		return list, err
	}
	defer br.Close()
	bctx, page, err := br.NewPage()
	if err != nil {
		return list, err
	}
	defer bctx.Close()
	if _, err := page.Goto("http://" + ln.Addr().String() + "/"); err != nil {
		return list, err
	}
	ev := bridge.NewEvaluator(bctx, page.MainFrame(), "true")
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = ev.EvalInto(c, "globalThis."+protocol.ChannelName+".listTests()", &list)
	return list, err
}

// WriteCatalogue prints list as `mcpconform list` does: a table with a
// count line, or indented JSON when asJSON.
func WriteCatalogue(w io.Writer, list protocol.SuiteList, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCLAUSE\tEDITION\tNEEDS\tNAME")
	for _, t := range list.Tests {
		needs := make([]string, len(t.Needs))
		for i, n := range t.Needs {
			needs[i] = string(n)
		}
		n := strings.Join(needs, ",")
		if n == "" {
			n = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Clause, t.Edition, n, t.Name)
	}
	tw.Flush()
	_, err := fmt.Fprintf(w, "%d tests (suite %s, protocol %s)\n", len(list.Tests), list.SuiteVersion, list.ProtocolVersion)
	return err
}
