//go:build unix

package generic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"
	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// verbsPage is a host page of our own: a <select>, a status that turns
// "Connected" and a spinner that goes away 400 ms after load, an image
// that delays the load event, a download link and a list of tools.
const verbsPage = `<!doctype html><title>verbs</title>
<select id="transport"><option value="sse">SSE</option><option value="http">Streamable HTTP</option></select>
<p id="status">Connecting…</p><p id="stale-dot" class="dot">connected</p><div class="spinner">…</div>
<img src="/slow.png">
<a id="dl" href="/file.txt" download="report.txt">download</a>
<ul class="tools"><li data-name="alpha">Alpha</li><li data-name="beta">Beta</li></ul>
<script>
setTimeout(() => {
  document.getElementById("status").textContent = "Connected to the server";
  document.querySelector(".spinner").remove();
  document.getElementById("stale-dot").hidden = true;
}, 400);
</script>`

// openProfile looks the profile name up in vars and opens its browser
// context (closed when the test ends), its {url} being url: the host as
// Lookup gives it, and the driver inside.
func openProfile(t *testing.T, name string, vars map[string]string, url string) (hosts.Host, *Host) {
	t.Helper()
	hh, err := Lookup(name, envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Unwrap(hh)
	if err := h.Open(env(t, time.Minute), playwright.BrowserNewContextOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.logf = t.Logf
	h.vars = map[string]string{PhURL: url}
	return hh, h
}

// The new verbs and capabilities in a real browser: goto waits for the
// load event, select chooses by label or value, wait-for-text and
// wait-for-hidden wait for the change, and fail naming what they saw;
// MODEL_TOOLS reads text or an attribute; checkDownload reports the file.
func TestNewVerbsInABrowser(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow.png":
			time.Sleep(700 * time.Millisecond)
			w.Header().Set("Content-Type", "image/png")
		case "/file.txt":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "the file's content")
		default:
			io.WriteString(w, verbsPage)
		}
	}))
	defer srv.Close()
	vars := map[string]string{
		"MCPCONFORM_VERBS_URL":          srv.URL,
		"MCPCONFORM_VERBS_STEPS":        "goto {url}/\nselect #transport=Streamable HTTP\nwait-for-text #status=Connected\nwait-for-hidden .spinner\nwait-for-hidden .dot",
		"MCPCONFORM_VERBS_STEP_TIMEOUT": "5s",
		"MCPCONFORM_VERBS_MODEL_TOOLS":  "ul.tools li",
	}
	hh, h := openProfile(t, "verbs", vars, srv.URL)
	ctx := context.Background()
	steps := h.Steps()
	t0 := time.Now()
	if err := h.runStep(ctx, h.Page, steps[0], h.vars); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 600*time.Millisecond {
		t.Errorf("goto returned after %s, before the load event (the image takes 700 ms)", d)
	}
	if state, _ := h.Page.Evaluate(`document.readyState`); state != "complete" {
		t.Errorf("after goto the document is %v", state)
	}
	for _, st := range steps[1:] {
		if err := h.runStep(ctx, h.Page, st, h.vars); err != nil {
			t.Fatalf("step %d (%s): %v", st.Index, st, err)
		}
	}
	if v, _ := h.Page.InputValue("#transport"); v != "http" {
		t.Errorf("select chose %q", v)
	}
	if txt, _ := h.Page.TextContent("#status"); !strings.Contains(txt, "Connected") {
		t.Errorf("wait-for-text returned with the status %q", txt)
	}
	// By value too; and failures say what they saw.
	sel, _ := parseStep("select #transport=sse", nil)
	if err := h.runStep(ctx, h.Page, sel, h.vars); err != nil {
		t.Fatal(err)
	}
	if v, _ := h.Page.InputValue("#transport"); v != "sse" {
		t.Errorf("select by value chose %q", v)
	}
	h.cfg.stepTimeout = time.Second
	wt, _ := parseStep("wait-for-text #status=Disconnected", nil)
	if err := h.runStep(ctx, h.Page, wt, h.vars); err == nil || !strings.Contains(err.Error(), `no visible match shows "Disconnected"`) || !strings.Contains(err.Error(), `the first reads "Connected to the server"`) {
		t.Errorf("wait-for-text of a text never shown: %v", err)
	}
	wh, _ := parseStep("wait-for-hidden #status", nil)
	if err := h.runStep(ctx, h.Page, wh, h.vars); err == nil || !strings.Contains(err.Error(), `an element matching "#status" is still visible`) {
		t.Errorf("wait-for-hidden of a visible element: %v", err)
	}

	// MODEL_TOOLS: the text, or an attribute.
	read := func() []string {
		t.Helper()
		r := hosts.Dispatch(ctx, hh, protocol.Request{Kind: protocol.KindReadModelToolList})
		var names []string
		if !r.OK || json.Unmarshal(r.Value, &names) != nil {
			t.Fatalf("readModelToolList: %+v", r)
		}
		return names
	}
	if got := read(); strings.Join(got, ",") != "Alpha,Beta" {
		t.Errorf("MODEL_TOOLS text: %v", got)
	}
	h.cfg.modelTools = attrSpec{sel: "ul.tools li", attr: "data-name"}
	if got := read(); strings.Join(got, ",") != "alpha,beta" {
		t.Errorf("MODEL_TOOLS attribute: %v", got)
	}

	// checkDownload, from the base every browser host has.
	none := hosts.Dispatch(ctx, hh, protocol.Request{Kind: protocol.KindCheckDownload, TimeoutMs: 200})
	if none.OK || !strings.Contains(none.Error, "no download within 200 ms") {
		t.Errorf("checkDownload before any download: %+v", none)
	}
	if err := h.Page.Click("#dl"); err != nil {
		t.Fatal(err)
	}
	r := hosts.Dispatch(ctx, hh, protocol.Request{Kind: protocol.KindCheckDownload, TimeoutMs: 5000})
	var dl struct{ Filename, Content string }
	if !r.OK || json.Unmarshal(r.Value, &dl) != nil || dl.Filename != "report.txt" || dl.Content != "the file's content" {
		t.Errorf("checkDownload: %+v (%+v)", r, dl)
	}
}
