package browserhost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// observePrompts reports what the host page put before the user since the
// mark: a toast that appeared, a second question of the same text as one
// already there, a native dialog (which a driver with no handler of its
// own still has dismissed), with a screenshot; nothing when nothing came.
func TestObservePromptsReportsWhatAppearedSinceTheMark(t *testing.T) {
	page := `<!doctype html><body>
<button>Send</button>
<div role="dialog" id="old">Let the app call a tool? probe <button>Allow</button></div>
<script>
function ask(html) { const d = document.createElement("div"); d.innerHTML = html; document.body.append(d.firstElementChild); }
</script></body>`
	b := openPage(t, page)
	// The run's evidence directory for the host: the screenshots go there.
	b.EvidenceDir = t.TempDir()
	observe := func(phase string) protocol.PromptReport {
		t.Helper()
		r, err := b.ObservePrompts(context.Background(), protocol.Request{Kind: protocol.KindObservePrompts, Phase: phase})
		if err != nil || !r.OK {
			t.Fatalf("observePrompts %s: %+v %v", phase, r, err)
		}
		var rep protocol.PromptReport
		if phase == protocol.PhaseReport {
			if err := json.Unmarshal(r.Value, &rep); err != nil {
				t.Fatal(err)
			}
		}
		return rep
	}
	for _, c := range []struct {
		name string
		do   string // script run between the mark and the report
		want []string
	}{
		{"nothing new", ``, nil},
		{"a toast with its buttons", `ask('<div class="toast" role="status">Download 1 file? <button>Download</button><button>Deny</button></div>')`,
			[]string{"toast: Download 1 file? DownloadDeny"}},
		{"a second question of the same text", `ask('<div role="dialog">Let the app call a tool? probe <button>Allow</button></div>')`,
			[]string{"dialog: Let the app call a tool? probe Allow"}},
		{"a native confirm", `setTimeout(() => confirm("Open external link?"), 0)`, []string{"native confirm: Open external link?"}},
		// A host that asks in a window of its own (written by the host
		// page: blank, of its origin).
		{"a window of the host's own", `window.__w = window.open("", "_blank", "popup,width=400,height=200");
window.__w.document.title = "Confirm download";
window.__w.document.body.innerHTML = '<div role="dialog">Download 1 file? <button>Download</button></div><button>Later</button>';`,
			[]string{"window: Confirm download (about:blank)", "dialog: Download 1 file? Download", "button: Later"}},
		// In a tab of the host's that was there at the mark: its dialogs
		// and toasts, not its buttons (its own UI).
		{"a question in the host's other tab", `const d = window.__w.document;
d.body.insertAdjacentHTML("beforeend", '<div role="alertdialog">Open the link?</div><button>Extra</button>');`,
			[]string{"dialog: Open the link?"}},
		// A tab of another origin is a link the app opened, not a question.
		{"a link opened", `window.__w.close(); window.open("http://127.0.0.1:9/link", "_blank")`, nil},
	} {
		observe(protocol.PhaseMark)
		if c.do != "" {
			if _, err := b.Page.Evaluate(c.do); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		// What is to come is waited for (a popup reaches the driver as an
		// event of its own, a native dialog once the page's timer ran):
		// a fixed 1.5 s assumed both within it. Where nothing is to come,
		// the 1.5 s are the time anything would have had.
		var rep protocol.PromptReport
		if len(c.want) == 0 {
			time.Sleep(1500 * time.Millisecond)
			rep = observe(protocol.PhaseReport)
		} else {
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if rep = observe(protocol.PhaseReport); slices.Equal(rep.Seen, c.want) || time.Now().After(deadline) {
					break
				}
			}
		}
		if !slices.Equal(rep.Seen, c.want) {
			t.Errorf("%s: seen %q, want %q", c.name, rep.Seen, c.want)
		}
		if len(c.want) == 0 {
			if rep.Screenshot != "" {
				t.Errorf("%s: a screenshot of nothing: %s", c.name, rep.Screenshot)
			}
			continue
		}
		if st, err := os.Stat(rep.Screenshot); err != nil || st.Size() == 0 || !strings.HasSuffix(rep.Screenshot, ".png") || filepath.Dir(rep.Screenshot) != b.EvidenceDir {
			t.Errorf("%s: screenshot %q (want a PNG in %s): %v", c.name, rep.Screenshot, b.EvidenceDir, err)
		}
	}
	// A run that keeps no evidence gets no screenshot, here or anywhere.
	b.EvidenceDir = ""
	observe(protocol.PhaseMark)
	if _, err := b.Page.Evaluate(`() => ask('<div role="dialog">Again?</div>')`); err != nil {
		t.Fatal(err)
	}
	var rep protocol.PromptReport
	for deadline := time.Now().Add(15 * time.Second); len(rep.Seen) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rep = observe(protocol.PhaseReport)
	}
	if len(rep.Seen) == 0 || rep.Screenshot != "" {
		t.Errorf("without an evidence directory: seen %q, screenshot %q; want the question seen and no screenshot", rep.Seen, rep.Screenshot)
	}
	// A tab the driver opened since the mark (a tool's own tab) is the
	// driver's, though it shows the host's page with its dialog.
	observe(protocol.PhaseMark)
	tab, err := b.NewTab()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Goto(b.Page.URL()); err != nil {
		t.Fatal(err)
	}
	if rep := observe(protocol.PhaseReport); len(rep.Seen) != 0 {
		t.Errorf("the driver's own tab: seen %q, want nothing", rep.Seen)
	}
}
