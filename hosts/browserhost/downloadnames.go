package browserhost

import (
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// The name a page asks the browser to save a download under is not the name
// the browser reports: Chromium escapes what a file name may not hold (a
// requested "../../x.txt" is saved, and suggested, as "_.._x.txt"), so a
// host that passed a traversal through and one that replaced the separators
// itself (".._.._x.txt") leave the same file. downloads/filename-sanitised
// must tell them apart, so every page of a Base's context reports the
// download attribute of each anchor it clicks, the way web pages name
// downloads, before the browser sees it.

// downloadNameBinding is the function the init script calls.
const downloadNameBinding = "__mcpconformDownloadName"

// downloadNameScript reports the download attribute of every anchor
// clicked, by a user's click or by a script's a.click() on an anchor in the
// document or not. It changes nothing the page does.
const downloadNameScript = `(() => {
  const report = window[` + "`" + downloadNameBinding + "`" + `];
  if (typeof report !== "function") return;
  const note = (a) => {
    try {
      if (a instanceof HTMLAnchorElement && a.hasAttribute("download")) report(a.getAttribute("download"));
    } catch {}
  };
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function (...args) {
    if (!this.isConnected) note(this); // a connected anchor's click reaches the listener below
    return click.apply(this, args);
  };
  addEventListener("click", (e) => {
    const t = e.target;
    note(t instanceof Element ? t.closest("a[download]") : null);
  }, true);
})();`

// requestedName is the latest download name a page asked for.
type requestedName struct {
	name string
	at   time.Time
}

// downloadNames holds, per page, the latest name asked for. It is shared by
// every Downloads watching a page (a host type's own and Base's), since a
// binding can be exposed once per context.
var downloadNames = struct {
	sync.Mutex
	latest map[playwright.Page]requestedName
}{latest: map[playwright.Page]requestedName{}}

// watchDownloadNames makes every page of c report the names it asks
// downloads to be saved under. It must run before c has pages.
func watchDownloadNames(c playwright.BrowserContext) error {
	err := c.ExposeBinding(downloadNameBinding, func(src *playwright.BindingSource, args ...any) any {
		if len(args) != 1 || src.Page == nil {
			return nil
		}
		name, ok := args[0].(string)
		if !ok {
			return nil
		}
		downloadNames.Lock()
		downloadNames.latest[src.Page] = requestedName{name, time.Now()}
		downloadNames.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	c.OnClose(func(playwright.BrowserContext) {
		downloadNames.Lock()
		for p := range downloadNames.latest {
			if p.Context() == c {
				delete(downloadNames.latest, p)
			}
		}
		downloadNames.Unlock()
	})
	return c.AddInitScript(playwright.Script{Content: playwright.String(downloadNameScript)})
}

// nameRequestedFor is the name page asked for just before a download that
// started at start, "" when it asked for none (a Content-Disposition
// download, or a page of a context nobody watched). The report of the name
// travels apart from the download event and may come a little after it.
func nameRequestedFor(page playwright.Page, start time.Time) string {
	downloadNames.Lock()
	defer downloadNames.Unlock()
	n, ok := downloadNames.latest[page]
	if !ok || n.at.Before(start.Add(-3*time.Second)) || n.at.After(start.Add(time.Second)) {
		return ""
	}
	return n.name
}
