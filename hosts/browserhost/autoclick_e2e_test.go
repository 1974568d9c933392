package browserhost_test

import (
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/internal/testkit/prompttest"
)

// While AutoDispatch answers a prompt that keeps coming back, every one of
// the driver's own clicks on the page reaches its button. Answered with
// the mouse (AutoClick without a shared lock), 2 and 3 of 60 driver clicks
// were swallowed in two runs, each reported done: the two actions'
// hit-target checks block each other's mouse events. 150 clicks make a
// run without a loss under AutoClick unlikely (about 0.2 %).
func TestAutoDispatchNeverSwallowsTheDriversClicks(t *testing.T) {
	b := openBase(t)
	url := serve(t, "127.0.0.1", prompttest.Page(0, 0))
	if _, err := b.Page.Goto(url); err != nil {
		t.Fatal(err)
	}
	stopAnswering := browserhost.AutoDispatch(b.Page.Locator("#allow"), time.Millisecond, nil)
	const n = 150
	for i := 0; i < n; i++ {
		if err := b.Page.Locator("#halt").Click(playwright.LocatorClickOptions{Timeout: playwright.Float(5000)}); err != nil {
			stopAnswering()
			t.Fatal(err)
		}
	}
	stopAnswering()
	prompttest.Check(t, b.Page, n, 5, "the driver, AutoDispatch answering")
}

// Prompts that pile up are answered together at one look, not one a look:
// eight shown at once are all answered within one interval of each other
// (one a look, 2 s apart, they would spread over 14 s). Seen fall behind:
// the reference host's tool-call approvals under load (CI54), where a
// View's call waited its turn past the host's own limit.
func TestAutoDispatchAnswersEveryPromptShownAtOneLook(t *testing.T) {
	b := openBase(t)
	url := serve(t, "127.0.0.1", `<!doctype html><div id="prompts"></div><script>
window.at = [];
for (let i = 0; i < 8; i++) {
  const ok = document.createElement("button");
  ok.className = "allow"; ok.textContent = "Allow " + i;
  ok.addEventListener("click", () => { window.at.push(performance.now()); ok.remove(); });
  document.getElementById("prompts").append(ok);
}
</script>`)
	if _, err := b.Page.Goto(url); err != nil {
		t.Fatal(err)
	}
	const every = 2 * time.Second
	stop := browserhost.AutoDispatch(b.Page.Locator(".allow"), every, nil)
	defer stop()
	var at []any
	for deadline := time.Now().Add(30 * time.Second); len(at) < 8; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 8 prompts answered within 30 s", len(at))
		}
		v, err := b.Page.Evaluate("() => window.at")
		if err != nil {
			t.Fatal(err)
		}
		at, _ = v.([]any)
	}
	first, last := toFloat(at[0]), toFloat(at[len(at)-1])
	if spread := time.Duration((last - first) * float64(time.Millisecond)); spread >= every {
		t.Errorf("the 8 prompts were answered over %s, want within one look (%s)", spread, every)
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}
