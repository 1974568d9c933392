package bridge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// triggerPage is a trigger button with the suite's trigger() and
// awaitClick() as the engine has them. state declares hovered and presses
// with their first values; handlers are the button's listeners, where a
// click the button counts calls count(). Pointer moves are counted as the
// suite counts them (moves).
func triggerPage(state, handlers string) string {
	return `<!doctype html><body style="margin:0">
<button id="b" style="margin:40px;width:200px;height:60px">trigger</button>
<script>
const b = document.getElementById("b");
` + state + `
let moves = 0, clicks = 0;
const waiters = new Set();
const count = () => { clicks++; for (const w of [...waiters]) w(); };
` + handlers + `
const info = () => { const r = b.getBoundingClientRect(); return {armed: true, x: r.x, y: r.y, width: r.width, height: r.height, hovered, moves, clicks, presses}; };
window.__mcpConformance = {
  trigger: info,
  awaitClick: (n, ms) => new Promise((done) => {
    const look = () => { if (clicks > n) { waiters.delete(look); clearTimeout(t); done(info()); } };
    const t = setTimeout(() => { waiters.delete(look); done(info()); }, ms);
    waiters.add(look);
    look();
  }),
};
</script>`
}

// openTrigger serves page in a frame on another site (localhost against
// 127.0.0.1: an out-of-process frame, as a View is) of a top page, which
// has extra after the iframe, and binds the suite's channel in it.
func openTrigger(t *testing.T, page, extra string) (context.Context, playwright.Page, *bridge.Suite) {
	t.Helper()
	br, _ := e2etest.Parts(t)
	serve := func(body string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	crossSite := strings.Replace(serve(page).URL, "127.0.0.1", "localhost", 1)
	top := serve(`<!doctype html><body style="margin:0"><iframe src="` + crossSite + `" style="margin:30px;width:400px;height:200px;border:0"></iframe>` + extra)
	c, p, err := br.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := p.Goto(top.URL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	s, err := bridge.FindSuite(ctx, c, p, []string{"iframe"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, p, s
}

// A trigger whose first press never counts, as when Chromium sent a press
// aimed at it to another frame (the View saw neither its pointerdown nor
// its click).
var swallowingTrigger = triggerPage(`let hovered = false, presses = 0;`, `
b.addEventListener("pointermove", () => { hovered = true; moves++; });
b.addEventListener("pointerleave", () => (hovered = false));
b.addEventListener("click", () => {
  presses++;
  if (presses === 1) return; // lost
  count();
});`)

// A press the button never counts is made again, and the click lands: not
// an error after the whole wait (ClickTrigger waited 10 s for the lost
// press, then failed); and the press made again is said.
func TestClickTriggerPressesAgainWhenAPressIsLost(t *testing.T) {
	ctx, p, s := openTrigger(t, swallowingTrigger, "")
	presses, err := bridge.ClickTrigger(ctx, p, s)
	if err != nil {
		t.Fatalf("ClickTrigger with the first press lost: %v", err)
	}
	if presses != 2 {
		t.Errorf("ClickTrigger reports %d presses; want 2, the lost one said", presses)
	}
	raw, err := s.Evaluator().Eval(ctx, "JSON.stringify(window.__mcpConformance.trigger())")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `\"clicks\":1`) || !strings.Contains(string(raw), `\"presses\":2`) {
		t.Errorf("the trigger after ClickTrigger: %s; want the lost press and one more, counted", raw)
	}
}

// A trigger whose hovered flag is stale (true before the pointer ever
// reached it, as when Chromium sent the out-of-process frame no
// pointerleave) and which the host page covers for its first 700 ms, as
// a layout in motion would. Presses aimed on the strength of the stale
// flag alone landed on the cover and were lost (every lost press seen on
// the reference host, 2026-12-05); the pointer must be seen by the button
// after the runner's own move away, and then the first press lands.
var staleHoverTrigger = triggerPage(`let hovered = true, presses = 0;`, `
b.addEventListener("pointermove", () => { hovered = true; moves++; });
b.addEventListener("click", () => { presses++; count(); });`)

func TestClickTriggerWaitsForAMoveNotAStaleHover(t *testing.T) {
	ctx, p, s := openTrigger(t, staleHoverTrigger, `
<div id="cover" style="position:absolute;left:0;top:0;width:500px;height:300px"></div>
<script>
let covered = 0;
document.getElementById("cover").addEventListener("click", () => covered++);
window.uncover = () => document.getElementById("cover").remove();
</script>`)
	// The cover goes once the runner has been aiming for a while: until
	// then no move reaches the button, and a press would hit the cover.
	go func() {
		time.Sleep(700 * time.Millisecond)
		p.Evaluate("window.uncover()")
	}()
	presses, err := bridge.ClickTrigger(ctx, p, s)
	if err != nil {
		t.Fatalf("ClickTrigger: %v", err)
	}
	raw, err := s.Evaluator().Eval(ctx, "JSON.stringify(window.__mcpConformance.trigger())")
	if err != nil {
		t.Fatal(err)
	}
	lost, err := p.Evaluate("covered")
	if err != nil {
		t.Fatal(err)
	}
	if lost != 0 || presses != 1 || !strings.Contains(string(raw), `\"presses\":1`) {
		t.Errorf("the trigger after ClickTrigger (%d presses): %s, %v press(es) on the cover; want one press, on the button, once a move had reached it", presses, raw, lost)
	}
}
