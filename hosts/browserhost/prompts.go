package browserhost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/protocol"
)

// Prompts: what the host page put before the user while a request the
// host may ask the user about was pending (observePrompts). A host that
// asks before downloading, opening a link or forwarding a View's message
// waits for a user the driver may not be able to play (no CONFIRM or
// APPROVE in the profile); what the page showed tells that wait apart
// from a host that simply never answers.

// promptState is the Base's record for observePrompts.
type promptState struct {
	mu sync.Mutex
	// marked are the prompt-like elements the page showed at the mark,
	// counted by key.
	marked map[string]int
	// native are the native dialogs shown since the context opened, in
	// order; sinceMark the index of the first after the mark.
	native    []string
	sinceMark int
}

// nativeFallback is how long a native dialog waits for the host driver's
// own handler before the prompt record dismisses it, as Playwright does
// for a page nobody listens to (a listener, even one that only records,
// stops Playwright's own dismissal).
const nativeFallback = time.Second

// watchNativePrompts records every native dialog of c for observePrompts.
// A dialog no handler of the host driver answers is dismissed, as
// Playwright would without this listener.
func (b *Base) watchNativePrompts(c playwright.BrowserContext) {
	c.OnDialog(func(d playwright.Dialog) {
		b.prompts.mu.Lock()
		if len(b.prompts.native) < maxDialogs {
			b.prompts.native = append(b.prompts.native, fmt.Sprintf("native %s: %s", d.Type(), oneLine(d.Message(), 200)))
		}
		b.prompts.mu.Unlock()
		go func() {
			time.Sleep(nativeFallback)
			if d.Type() == "beforeunload" {
				_ = d.Accept() // an error: the driver's own handler answered
			} else {
				_ = d.Dismiss()
			}
		}()
	})
}

// promptScan lists the host page's visible prompt-like elements: dialogs
// (role dialog or alertdialog, an open <dialog>, a modal), toasts and
// alerts (role alert or status, aria-live regions, toast and snackbar
// classes, sonner's toasts) and buttons, each as {kind, text, old}. Only
// the host's own document is read: a View's buttons are the View's. With
// mark true it remembers the elements (a WeakSet of the page, so the
// DOM is not touched); old says an element was there at the mark, which
// tells a new question from an older one of the same text. marked is
// false when the page has no mark (it navigated since).
const promptScan = `(mark) => {
  const sel = '[role=dialog],[role=alertdialog],dialog[open],[aria-modal=true],[class*=modal i],[role=alert],[role=status],[aria-live]:not([aria-live=off]),[data-sonner-toast],[class*=toast i],[class*=snackbar i],[class*=notification i],button,[role=button]';
  const items = [];
  const els = [];
  const seen = window.__mcpconformPrompts;
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || cs.visibility === "hidden" || cs.display === "none" || cs.opacity === "0") continue;
    const text = (el.innerText || el.getAttribute("aria-label") || el.getAttribute("title") || "").replace(/\s+/g, " ").trim();
    if (!text) continue;
    const kind = el.matches("button,[role=button]") ? "button" : el.matches("[role=dialog],[role=alertdialog],dialog,[aria-modal=true],[class*=modal i]") ? "dialog" : "toast";
    items.push({ kind, text: text.slice(0, 200), old: !!seen && seen.has(el) });
    els.push(el);
  }
  if (mark) {
    const s = new WeakSet();
    for (const el of els) s.add(el);
    Object.defineProperty(window, "__mcpconformPrompts", { value: s, configurable: true, writable: true });
  }
  return { marked: !!seen, items };
}`

// promptItem is one element promptScan found.
type promptItem struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Old: the element was on the page at the mark.
	Old bool `json:"old"`
}

// promptScanResult is promptScan's answer.
type promptScanResult struct {
	Marked bool         `json:"marked"`
	Items  []promptItem `json:"items"`
}

func (p promptItem) key() string { return p.Kind + ": " + p.Text }

// newPrompts are the items of after that are not Old and that before
// (counts by key, for a page that lost its mark) did not hold, in page
// order, dialogs and toasts first; an item whose text is
// part of an earlier new dialog's or toast's (its button, a nested
// region) adds nothing and is left out. At most max are kept.
func newPrompts(before map[string]int, after []promptItem, max int) []string {
	left := map[string]int{}
	for k, n := range before {
		left[k] = n
	}
	var boxes, buttons []promptItem
	for _, it := range after {
		if it.Old {
			continue
		}
		if left[it.key()] > 0 {
			left[it.key()]--
			continue
		}
		if it.Kind == "button" {
			buttons = append(buttons, it)
		} else {
			boxes = append(boxes, it)
		}
	}
	var out []string
	var texts []string
	for _, it := range append(boxes, buttons...) {
		covered := false
		for _, t := range texts {
			if strings.Contains(t, it.Text) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		texts = append(texts, it.Text)
		out = append(out, it.key())
		if len(out) == max {
			break
		}
	}
	return out
}

// maxPromptItems bounds a report.
const maxPromptItems = 6

// ObservePrompts is observePrompts: "mark" remembers the prompt-like
// elements the host page shows and forgets earlier native dialogs;
// "report" answers a protocol.PromptReport of the elements and native
// dialogs that appeared since, with a screenshot of the page when there
// are any.
func (b *Base) ObservePrompts(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if b.Page == nil {
		return protocol.Result{OK: false, Error: "no host page"}, nil
	}
	mark := req.Phase == protocol.PhaseMark
	raw, err := b.Page.Evaluate(promptScan, mark)
	if err != nil {
		return protocol.Result{OK: false, Error: "reading the host page: " + FirstLine(err)}, nil
	}
	scan, err := decodePromptScan(raw)
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	items := scan.Items
	b.prompts.mu.Lock()
	defer b.prompts.mu.Unlock()
	if req.Phase == protocol.PhaseMark {
		b.prompts.marked = map[string]int{}
		for _, it := range items {
			b.prompts.marked[it.key()]++
		}
		b.prompts.sinceMark = len(b.prompts.native)
		return protocol.Result{OK: true}, nil
	}
	rep := protocol.PromptReport{Seen: append([]string{}, b.prompts.native[min(b.prompts.sinceMark, len(b.prompts.native)):]...)}
	// The page's own mark tells elements apart; without it (the page
	// navigated), the texts counted at the mark do.
	before := b.prompts.marked
	if scan.Marked {
		before = nil
	}
	rep.Seen = append(rep.Seen, newPrompts(before, items, maxPromptItems)...)
	if len(rep.Seen) > 0 {
		rep.Screenshot = b.promptScreenshot()
	}
	v, err := json.Marshal(rep)
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: true, Value: v}, nil
}

func decodePromptScan(raw any) (promptScanResult, error) {
	var r promptScanResult
	j, err := json.Marshal(raw)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(j, &r); err != nil {
		return r, fmt.Errorf("the host page's prompts: %v", err)
	}
	return r, nil
}

// promptScreenshot saves a PNG of the host page in the temporary
// evidence directory and returns its path ("" when it could not).
func (b *Base) promptScreenshot() string {
	dir := filepath.Join(os.TempDir(), "mcpconform-evidence")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	p := filepath.Join(dir, fmt.Sprintf("prompt-%s-%d.png", time.Now().Format("20060102-150405"), time.Now().UnixNano()%1e6))
	if _, err := b.Page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(p), Timeout: playwright.Float(5000)}); err != nil {
		return ""
	}
	return p
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
