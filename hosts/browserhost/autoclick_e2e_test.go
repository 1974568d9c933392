package browserhost_test

import (
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
)

// While AutoDispatch answers a prompt that keeps coming back, every one of
// the driver's own clicks on the page reaches its button. Answered with
// the mouse (AutoClick without a shared lock), 2 and 3 of 60 driver clicks
// were swallowed in two runs, each reported done: the two actions'
// hit-target checks block each other's mouse events. 150 clicks make a
// run without a loss under AutoClick unlikely (about 0.2 %).
func TestAutoDispatchNeverSwallowsTheDriversClicks(t *testing.T) {
	b := openBase(t)
	url := serve(t, "127.0.0.1", `<!doctype html>
<button id="halt" style="position:fixed;left:20px;top:20px;width:90px;height:32px">Stop</button>
<div id="prompts" style="position:fixed;right:20px;bottom:20px"></div>
<script>
window.stops = 0; window.answered = 0;
document.getElementById("halt").addEventListener("click", () => stops++);
// A prompt that is asked again as soon as it is answered.
function ask() {
  const ok = document.createElement("button");
  ok.id = "allow"; ok.textContent = "Allow"; ok.style.cssText = "width:90px;height:32px";
  ok.addEventListener("click", () => { answered++; ok.remove(); setTimeout(ask, 0); });
  document.getElementById("prompts").append(ok);
}
ask();
</script>`)
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
	stops, err := b.Page.Evaluate("() => window.stops")
	if err != nil {
		t.Fatal(err)
	}
	answered, _ := b.Page.Evaluate("() => window.answered")
	if stops != n {
		t.Errorf("the driver clicked Stop %d times, each reported done, while prompts were answered (%v of them); the page saw %v", n, answered, stops)
	}
	if a, _ := answered.(int); a < 5 {
		t.Errorf("only %v prompts were answered while the driver clicked: the test did not overlap the two", answered)
	}
}
