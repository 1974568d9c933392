package generic

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/testkit/prompttest"
)

// With APPROVE answering a prompt that keeps coming back (one covering
// the page now and then, as a modal approval does), every click step
// reaches its button, and every fill keeps its text. Without the input
// lock the watcher's clicks and the steps' swallowed each other (two
// Playwright clicks at once on one page), each reported done.
func TestApprovalsNeverSwallowAStepsInput(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, prompttest.Page(20, 5))
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
	prompttest.Check(t, h.Page, n, 10, "the steps, APPROVE answering")
}

// A press step reaches the host page although a click into a View's frame
// left the focus there (a request made on the user's gesture): a profile
// that closes a host's question or a full-screen View with `press Escape`
// would otherwise press it in the View.
func TestPressStepReachesThePageFromAFocusedView(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body>
<iframe id="view" srcdoc="<button id=in>in the View</button>"></iframe>
<script>document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") document.body.dataset.escaped = "yes"; });</script></body>`)
	}))
	defer srv.Close()
	_, h := openProfile(t, "pressing", map[string]string{"MCPCONFORM_PRESSING_URL": srv.URL, "MCPCONFORM_PRESSING_STEPS": "goto {url}/"}, srv.URL)
	ctx := context.Background()
	if err := h.runStep(ctx, h.Page, h.Steps()[0], h.vars); err != nil {
		t.Fatal(err)
	}
	if err := h.Page.FrameLocator("#view").Locator("#in").Click(); err != nil {
		t.Fatal(err)
	}
	press, _ := parseStep("press Escape", nil)
	if err := h.runStep(ctx, h.Page, press, h.vars); err != nil {
		t.Fatal(err)
	}
	if v, _ := h.Page.Evaluate(`() => document.body.dataset.escaped ?? "no"`); v != "yes" {
		t.Errorf("the host page saw no Escape from the press step (%v): the key went to the View's frame, which had the focus", v)
	}
}
