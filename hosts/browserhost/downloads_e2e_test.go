package browserhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// A page names a download with an anchor's download attribute; the browser
// escapes what a file name may not hold before it reports the download.
// checkDownload reports both, so that a host's own sanitising can be told
// from the browser's.
func TestCheckDownloadReportsTheRequestedName(t *testing.T) {
	page := `<!doctype html><body>
<a id="attached" download="../../attached.txt" href="data:text/plain,attached">attached</a>
<script>
function detached() {
  const a = document.createElement("a");
  a.download = "..\\detached.txt";
  a.href = URL.createObjectURL(new Blob(["detached"], { type: "text/plain" }));
  a.click();
}
</script></body>`
	b := openPage(t, page)
	for _, c := range []struct {
		name, requested, content string
		do                       func() error
	}{
		{"a user's click on an anchor in the page", "../../attached.txt", "attached", func() error { return b.Page.Locator("#attached").Click() }},
		{"a script's click on an anchor not in the page", `..\detached.txt`, "detached", func() error { _, err := b.Page.Evaluate("detached()"); return err }},
	} {
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r, err := b.CheckDownload(context.Background(), protocol.Request{TimeoutMs: 5000})
		if err != nil || !r.OK {
			t.Fatalf("%s: checkDownload %+v %v", c.name, r, err)
		}
		var d browserhost.Download
		if err := json.Unmarshal(r.Value, &d); err != nil {
			t.Fatal(err)
		}
		if d.Requested != c.requested || d.Content != c.content {
			t.Errorf("%s: requested %q content %q, want %q and %q", c.name, d.Requested, d.Content, c.requested, c.content)
		}
		if strings.ContainsAny(d.Filename, `/\`) {
			t.Errorf("%s: the browser reported the file name %q, a path", c.name, d.Filename)
		}
	}
}

// openPage serves page on loopback and opens a browserhost.Base on it,
// both closed when the test ends.
func openPage(t *testing.T, page string) *browserhost.Base {
	t.Helper()
	return openHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) }))
}

// openHandler is openPage for a server of h.
func openHandler(t *testing.T, h http.Handler) *browserhost.Base {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	b := &browserhost.Base{}
	if err := b.Open(e2etest.Env(t, 10*time.Second), playwright.BrowserNewContextOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if _, err := b.Page.Goto(srv.URL); err != nil {
		t.Fatal(err)
	}
	return b
}
