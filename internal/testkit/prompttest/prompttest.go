// Package prompttest serves the page the input-lock tests click on: a
// button the driver presses again and again while a prompt the host keeps
// asking is answered beside it (browserhost.AutoDispatch, the profile
// host's APPROVE watcher).
package prompttest

import (
	"fmt"
	"testing"

	"github.com/mxschmitt/playwright-go"
)

// Page is a document with a Stop button (#halt) that counts its clicks, a
// text field (#note), and a prompt whose Allow button (#allow) is asked
// again againMs after each answer; with modalEvery above 0, every
// modalEvery-th prompt covers the whole page until it is answered, as a
// modal approval does.
func Page(againMs, modalEvery int) string {
	return fmt.Sprintf(`<!doctype html>
<button id="halt" style="position:fixed;left:20px;top:20px;width:90px;height:32px">Stop</button>
<input id="note" style="position:fixed;left:20px;top:80px">
<div id="prompts" style="position:fixed;right:20px;bottom:20px"></div>
<script>
window.stops = 0; window.answered = 0;
document.getElementById("halt").addEventListener("click", () => stops++);
function ask() {
  const modal = %[2]d > 0 && (answered + 1) %% %[2]d === 0;
  const ok = document.createElement("button");
  ok.id = "allow"; ok.textContent = "Allow"; ok.style.cssText = "width:90px;height:32px";
  const box = modal ? Object.assign(document.createElement("div"), { style: "position:fixed;inset:0;background:#0004;display:grid;place-items:center" }) : ok;
  if (modal) box.append(ok);
  ok.addEventListener("click", () => { answered++; box.remove(); setTimeout(ask, %[1]d); });
  document.getElementById("prompts").append(box);
}
ask();
</script>`, againMs, modalEvery)
}

// Check fails t unless the page saw every one of the driver's n clicks
// on Stop, and at least minAnswered prompts were answered meanwhile (else
// the two did not overlap and the test proved nothing). who names the
// clicker and the answerer for the message.
func Check(t *testing.T, page playwright.Page, n, minAnswered int, who string) {
	t.Helper()
	stops, err := page.Evaluate("() => window.stops")
	if err != nil {
		t.Fatal(err)
	}
	answered, _ := page.Evaluate("() => window.answered")
	if stops != n {
		t.Errorf("%s: Stop was clicked %d times, each reported done, while %v prompts were answered; the page saw %v", who, n, answered, stops)
	}
	if a, _ := answered.(int); a < minAnswered {
		t.Errorf("%s: only %v prompts were answered while Stop was clicked: the test did not overlap the two", who, answered)
	}
}
