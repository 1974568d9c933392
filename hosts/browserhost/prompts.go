package browserhost

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
	// marked are the prompt-like elements each page read at the mark
	// showed, counted by key.
	marked map[playwright.Page]map[string]int
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
// region) adds nothing and is left out. A new copy of a button the page
// already showed at the mark is the page's own UI growing (a message
// log's Replay and Pin on each new entry, as the MCP Inspector shows),
// not a question: a question that reuses a button's text comes in a
// dialog or toast, which counts. At most max are kept.
func newPrompts(before map[string]int, after []promptItem, max int) []string {
	left := map[string]int{}
	for k, n := range before {
		left[k] = n
	}
	shown := map[string]bool{} // button texts on the page at the mark
	for k := range before {
		shown[k] = true
	}
	for _, it := range after {
		if it.Old {
			shown[it.key()] = true
		}
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
		if it.Kind == "button" && shown[it.key()] {
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
// elements the host's pages show and forgets earlier native dialogs;
// "report" answers a protocol.PromptReport of the elements, windows and
// native dialogs that appeared since, with a screenshot of the page that
// shows the first of them.
//
// The host's pages are the host page and the other tabs of its origin
// (or blank, as a window the host writes itself): a host may ask in a
// window of its own, or in the tab that shows the View. Another tab
// counts only its dialogs and toasts (its buttons are its own UI, not a
// question about this request), and a tab that opened since the mark is
// reported as a window, with what it shows. A tab of another origin is
// a link the app opened, and the driver's own tabs (NewTab) opened since
// the mark are the driver's.
func (b *Base) ObservePrompts(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if b.Page == nil {
		return protocol.Result{OK: false, Error: "no host page"}, nil
	}
	mark := req.Phase == protocol.PhaseMark
	pages := b.promptPages()
	scans := make([]promptScanResult, len(pages))
	for i, p := range pages {
		var raw any
		var err error
		if i == 0 {
			raw, err = p.Evaluate(promptScan, mark)
		} else {
			raw, err = evaluateWithin(p, promptScan, mark, otherTabRead)
		}
		if err == nil {
			scans[i], err = decodePromptScan(raw)
		}
		if err != nil && i == 0 {
			return protocol.Result{OK: false, Error: "reading the host page: " + FirstLine(err)}, nil
		}
		if err != nil {
			pages[i] = nil // closed or navigating: nothing to read
		}
	}
	b.prompts.mu.Lock()
	defer b.prompts.mu.Unlock()
	if mark {
		b.prompts.marked = map[playwright.Page]map[string]int{}
		for i, p := range pages {
			if p == nil {
				continue
			}
			counts := map[string]int{}
			for _, it := range scans[i].Items {
				counts[it.key()]++
			}
			b.prompts.marked[p] = counts
		}
		b.prompts.sinceMark = len(b.prompts.native)
		return protocol.Result{OK: true}, nil
	}
	rep := protocol.PromptReport{Seen: append([]string{}, b.prompts.native[min(b.prompts.sinceMark, len(b.prompts.native)):]...)}
	var shot playwright.Page
	if len(rep.Seen) > 0 {
		shot = b.Page
	}
	for i, p := range pages {
		if p == nil || len(rep.Seen) >= maxPromptItems {
			continue
		}
		before, known := b.prompts.marked[p]
		// The page's own mark tells elements apart; without it (the page
		// navigated), the texts counted at the mark do.
		if scans[i].Marked {
			before = nil
		}
		items := scans[i].Items
		var seen []string
		switch {
		case i == 0:
			seen = newPrompts(before, items, maxPromptItems-len(rep.Seen))
		case known:
			items = slices.DeleteFunc(slices.Clone(items), func(it promptItem) bool { return it.Kind == "button" })
			seen = newPrompts(before, items, maxPromptItems-len(rep.Seen))
		case b.ownTab(p):
			continue
		default:
			window := p.URL()
			if title, _ := p.Title(); strings.TrimSpace(title) != "" {
				window = fmt.Sprintf("%s (%s)", oneLine(title, 120), window)
			}
			seen = append([]string{"window: " + window}, newPrompts(nil, items, maxPromptItems-len(rep.Seen)-1)...)
		}
		if len(seen) > 0 && shot == nil {
			shot = p
		}
		rep.Seen = append(rep.Seen, seen...)
	}
	if shot != nil {
		rep.Screenshot = promptScreenshot(shot, b.EvidenceDir)
	}
	v, err := json.Marshal(rep)
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: true, Value: v}, nil
}

// otherTabRead bounds the read of a tab other than the host page: one
// that is busy or held by a native dialog (dismissed after
// nativeFallback) must not hold the check up; it is left out unread.
const otherTabRead = 2 * time.Second

// evaluateWithin is p.Evaluate(js, arg), given up after d (the
// evaluation then ends on its own, unread).
func evaluateWithin(p playwright.Page, js string, arg any, d time.Duration) (any, error) {
	type answer struct {
		v   any
		err error
	}
	c := make(chan answer, 1)
	go func() {
		v, err := p.Evaluate(js, arg)
		c <- answer{v, err}
	}()
	select {
	case a := <-c:
		return a.v, a.err
	case <-time.After(d):
		return nil, fmt.Errorf("no answer within %v", d)
	}
}

// promptPages are the host page, then the open tabs of its origin or
// blank, in the order they opened.
func (b *Base) promptPages() []playwright.Page {
	origin := func(p playwright.Page) string {
		u, err := url.Parse(p.URL())
		if err != nil {
			return ""
		}
		return u.Scheme + "://" + u.Host
	}
	host := origin(b.Page)
	b.mu.Lock()
	defer b.mu.Unlock()
	pages := []playwright.Page{b.Page}
	for _, p := range b.opened {
		if !p.IsClosed() && (p.URL() == "about:blank" || origin(p) == host) {
			pages = append(pages, p)
		}
	}
	return pages
}

// ownTab says whether the driver opened p (NewTab).
func (b *Base) ownTab(p playwright.Page) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Contains(b.own, p)
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

// promptScreenshot saves a PNG of page in dir, the run's evidence
// directory for the host, and returns its path ("" when it could not, or
// when the run keeps no evidence: a prompt can show logged-in content,
// and nothing goes where the user did not ask).
func promptScreenshot(page playwright.Page, dir string) string {
	if dir == "" {
		return ""
	}
	p, _ := SaveScreenshot(page, dir, fmt.Sprintf("prompt-%s-%d.png", time.Now().Format("20060102-150405"), time.Now().UnixNano()%1e6))
	return p
}

// SaveScreenshot saves a PNG of page as dir/name, making dir, and returns
// its path. The evidence a host captures itself (a prompt, a failed setup
// step) is saved this way, into hosts.Env.EvidenceDir.
func SaveScreenshot(page playwright.Page, dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(p), Timeout: playwright.Float(5000)}); err != nil {
		return "", err
	}
	return p, nil
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
