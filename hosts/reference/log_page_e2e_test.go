package reference_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/runner"
)

// The host page's protocol log is drawn in batches, not once per message:
// an entry is in the list (with its data) as soon as the message passes,
// but hidden until the next batch shows it. Drawing the visible log once
// per message made Chromium render the page for nearly every message, and
// those frames held up the View's own calls through the host (the relay's
// round trip; docs/performance.md, "Relay"). No timing is asserted: a burst
// of View requests must be shown in far fewer batches than it has entries,
// none may be drawn the moment it is added, and each is shown in the end.
func TestProtocolLogIsDrawnInBatches(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h := reference.New()
	sbi, err := runner.SetUp(ctx, h, runner.Options{Env: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Teardown(context.Background())
	sb, ok := sbi.(*bridge.Suite)
	if !ok {
		t.Fatalf("bridge is %T, want *bridge.Suite", sbi)
	}
	// Watch the log: every entry added, whether it was drawn when added,
	// and each batch (one observer callback) that showed entries.
	if _, err := h.Page.Evaluate(`() => {
	  const list = document.querySelector('[data-testid="rpc-log"]');
	  const w = window.__logWatch = { added: 0, drawnWhenAdded: 0, batches: 0, shown: 0 };
	  new MutationObserver((records) => {
	    let shown = 0;
	    for (const r of records) {
	      for (const n of r.addedNodes) {
	        if (n.nodeName !== "LI") continue;
	        w.added++;
	        if (getComputedStyle(n).display !== "none") w.drawnWhenAdded++;
	      }
	      if (r.type === "attributes" && r.target.parentNode === list && r.target.style.display !== "none") shown++;
	    }
	    if (shown > 0) { w.batches++; w.shown += shown; }
	  }).observe(list, { childList: true, subtree: true, attributes: true, attributeFilter: ["style"] });
	}`); err != nil {
		t.Fatal(err)
	}
	// A burst of 40 pings from the View: 80 log entries (each request and
	// its answer).
	const pings = 40
	if err := sb.Evaluator().EvalInto(ctx, `(async () => {
	  const ids = new Set();
	  for (let i = 0; i < 40; i++) ids.add(1700000000 + i);
	  const answered = new Promise((resolve, reject) => {
	    const timer = setTimeout(() => reject(new Error("pings unanswered within 20 s")), 20000);
	    const l = (e) => {
	      if (e.source !== window.parent || !e.data || !ids.has(e.data.id)) return;
	      e.stopImmediatePropagation();
	      ids.delete(e.data.id);
	      if (ids.size === 0) { window.removeEventListener("message", l, true); clearTimeout(timer); resolve(); }
	    };
	    window.addEventListener("message", l, true);
	  });
	  for (const id of ids) window.parent.postMessage({ jsonrpc: "2.0", id, method: "ping" }, "*");
	  await answered;
	  return true;
	})()`, new(bool)); err != nil {
		t.Fatal(err)
	}
	var w struct{ Added, DrawnWhenAdded, Batches, Shown int }
	var pending int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		v, err := h.Page.Evaluate(`() => [window.__logWatch, [...document.querySelectorAll('[data-testid="rpc-log"] > li')].filter((li) => li.style.display === "none").length]`)
		if err != nil {
			t.Fatal(err)
		}
		pair := v.([]any)
		m := pair[0].(map[string]any)
		w.Added, w.DrawnWhenAdded, w.Batches, w.Shown = num(m["added"]), num(m["drawnWhenAdded"]), num(m["batches"]), num(m["shown"])
		pending = num(pair[1])
		if pending == 0 && w.Added >= 2*pings || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("log: %d entries added, %d shown in %d batches", w.Added, w.Shown, w.Batches)
	if w.Added < 2*pings {
		t.Fatalf("%d log entries for %d pings, want at least %d (each request and answer)", w.Added, pings, 2*pings)
	}
	if pending != 0 {
		t.Errorf("%d log entries still hidden 10 s after the burst: every entry must be shown", pending)
	}
	if w.DrawnWhenAdded != 0 {
		t.Errorf("%d of %d log entries were drawn the moment they were added; the log must show new entries in batches", w.DrawnWhenAdded, w.Added)
	}
	if w.Shown < w.Added {
		t.Errorf("%d of %d log entries were shown", w.Shown, w.Added)
	}
	if w.Batches == 0 || w.Batches*4 > w.Added {
		t.Errorf("%d log entries were shown in %d batches, want at most a quarter as many batches as entries", w.Added, w.Batches)
	}
}

func num(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	}
	return -1
}
