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

// requestedName is the latest download name a page asked for; used once a
// download took it.
type requestedName struct {
	name string
	at   time.Time
	used bool
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
		downloadNames.latest[src.Page] = requestedName{name: name, at: time.Now()}
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

// How far apart the report of a requested name and the download's start
// may be. The pairing is by order (the latest name no download took yet),
// not by time: the window only keeps a name asked for long ago (an anchor
// whose download the sandbox blocked) from being given to an unrelated
// later download, and is wide, because on a loaded machine the report,
// which travels apart from the download event, lags it (it was 3 s before
// and 1 s after, and under load the pairing was lost: docs/audit-timing.md).
const (
	nameBeforeDownload = 60 * time.Second
	nameAfterDownload  = 10 * time.Second
)

// nameRequestedFor is the name page asked for last before a download that
// started at start, if no other download took it, "" when it asked for
// none (a Content-Disposition download, or a page of a context nobody
// watched).
func nameRequestedFor(page playwright.Page, start time.Time) string {
	downloadNames.Lock()
	defer downloadNames.Unlock()
	n, ok := downloadNames.latest[page]
	if !ok || n.used || n.at.Before(start.Add(-nameBeforeDownload)) || n.at.After(start.Add(nameAfterDownload)) {
		return ""
	}
	n.used = true
	downloadNames.latest[page] = n
	return n.name
}
