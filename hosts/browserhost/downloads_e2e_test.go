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
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
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

// With a marker, checkDownload finds the file whose name carries it
// whenever it came: after a later download, after resetIsolation forgot
// it, after it was reported. The check that clicks a View's <a download>
// early and judges later (security/no-direct-download) relies on it; a
// request without a marker still gets the oldest file not reported, and
// not a marked one already taken.
func TestCheckDownloadByMarker(t *testing.T) {
	page := `<!doctype html><body><script>
function dl(name) {
  const a = document.createElement("a");
  a.download = name;
  a.href = "data:text/plain," + name;
  a.click();
}
</script></body>`
	b := openPage(t, page)
	ctx := context.Background()
	// download is check without the test: safe in a goroutine (t.Fatal
	// there would leave the test's receive waiting forever).
	download := func(marker string, timeoutMs int) (string, bool, error) {
		r, err := b.CheckDownload(ctx, protocol.Request{Marker: marker, TimeoutMs: timeoutMs})
		if err != nil {
			return "", false, err
		}
		var d browserhost.Download
		if r.OK {
			if err := json.Unmarshal(r.Value, &d); err != nil {
				return "", false, err
			}
		}
		return d.Filename, r.OK, nil
	}
	check := func(marker string, timeoutMs int) (string, bool) {
		t.Helper()
		name, ok, err := download(marker, timeoutMs)
		if err != nil {
			t.Fatal(err)
		}
		return name, ok
	}
	click := func(name string) {
		t.Helper()
		if _, err := b.Page.Evaluate("n => dl(n)", name); err != nil {
			t.Fatal(err)
		}
	}
	// A wait for a marked file ends on it, not on another file.
	click("first-other.txt")
	if _, ok := check("", 5000); !ok {
		t.Fatal("no first download")
	}
	type answer struct {
		name string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		name, _, err := download("mark-a1", 5000)
		got <- answer{name, err}
	}()
	click("second-other.txt")
	click("early-mark-a1.txt")
	// The marked wait gives up after its 5 s.
	if a := testwait.Recv(t, got, 15*time.Second, "the marked download wait never returned"); a.err != nil || a.name != "early-mark-a1.txt" {
		t.Fatalf("marked wait: got %q (%v), want early-mark-a1.txt", a.name, a.err)
	}
	// Taken by the marked request: the next unmarked one is the other file.
	if name, ok := check("", 1000); !ok || name != "second-other.txt" {
		t.Errorf("unmarked after the marked one: got %q %v, want second-other.txt", name, ok)
	}
	if name, ok := check("", 0); ok {
		t.Errorf("the marked file was reported again to an unmarked request: %q", name)
	}
	// Forgotten by resetIsolation, still found by its marker; a marker
	// that no file carries waits and answers none.
	click("later-mark-b2.txt")
	if _, ok := check("mark-b2", 5000); !ok {
		t.Fatal("mark-b2 not found before the reset")
	}
	b.ForgetDownloads()
	if name, ok := check("mark-b2", 0); !ok || name != "later-mark-b2.txt" {
		t.Errorf("after ForgetDownloads: got %q %v, want later-mark-b2.txt", name, ok)
	}
	if name, ok := check("mark-none", 200); ok {
		t.Errorf("a marker no file carries found %q", name)
	}
}
