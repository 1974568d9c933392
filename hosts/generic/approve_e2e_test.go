package generic

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// With APPROVE answering a prompt that keeps coming back (one covering
// the page now and then, as a modal approval does), every click step
// reaches its button, and every fill keeps its text. Without the input
// lock the watcher's clicks and the steps' swallowed each other (two
// Playwright clicks at once on one page), each reported done.
func TestApprovalsNeverSwallowAStepsInput(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html>
<button id="halt" style="position:fixed;left:20px;top:20px;width:90px;height:32px">Stop</button>
<input id="note" style="position:fixed;left:20px;top:80px">
<div id="prompts" style="position:fixed;right:20px;bottom:20px"></div>
<script>
window.stops = 0; window.answered = 0;
document.getElementById("halt").addEventListener("click", () => stops++);
// A prompt asked again 20 ms after it is answered; every fifth covers the
// whole page until answered.
function ask() {
  const modal = (answered + 1) % 5 === 0;
  const ok = document.createElement("button");
  ok.id = "allow"; ok.textContent = "Allow"; ok.style.cssText = "width:90px;height:32px";
  const box = modal ? Object.assign(document.createElement("div"), { style: "position:fixed;inset:0;background:#0004;display:grid;place-items:center" }) : ok;
  if (modal) box.append(ok);
  ok.addEventListener("click", () => { answered++; box.remove(); setTimeout(ask, 20); });
  document.getElementById("prompts").append(box);
}
ask();
</script>`)
	}))
	defer srv.Close()
	// A profile whose only step loads the page, with APPROVE set.
	_, h := openProfile(t, "approving", map[string]string{"MCPCONFORM_APPROVING_URL": srv.URL, "MCPCONFORM_APPROVING_STEPS": "goto {url}/", "MCPCONFORM_APPROVING_APPROVE": "#allow"}, srv.URL)
	ctx := context.Background()
	if err := h.runStep(ctx, h.Page, h.Steps()[0], h.vars); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { approvalInterval = d }(approvalInterval)
	approvalInterval = time.Millisecond
	h.watchApprovals()
	click, _ := parseStep("click #halt", nil)
	const n = 40
	for i := 0; i < n; i++ {
		if err := h.runStep(ctx, h.Page, click, h.vars); err != nil {
			h.stopApproving()
			t.Fatalf("click %d: %v", i+1, err)
		}
		if i%5 == 0 {
			text := fmt.Sprintf("note %d", i)
			fill, _ := parseStep("fill #note="+text, nil)
			if err := h.runStep(ctx, h.Page, fill, h.vars); err != nil {
				h.stopApproving()
				t.Fatalf("fill %d: %v", i, err)
			}
			if v, _ := h.Page.InputValue("#note"); v != text {
				t.Errorf("after the fill step the field holds %q, want %q", v, text)
			}
		}
	}
	h.stopApproving()
	stops, err := h.Page.Evaluate("() => window.stops")
	if err != nil {
		t.Fatal(err)
	}
	answered, _ := h.Page.Evaluate("() => window.answered")
	if stops != n {
		t.Errorf("the steps clicked Stop %d times, each reported done, while APPROVE answered %v prompts; the page saw %v", n, answered, stops)
	}
	if a, _ := answered.(int); a < 10 {
		t.Errorf("only %v prompts were answered while the steps clicked: the test did not overlap the two", answered)
	}
}
