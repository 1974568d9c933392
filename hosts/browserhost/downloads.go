package browserhost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/internal/broadcast"
	"github.com/mcpconform/mcpconform/protocol"
)

// Downloads records the files a page downloads and answers checkDownload.
// Base embeds one that watches every page of its context (Open accepts
// downloads unless told otherwise), so every browser host has the
// capability; a host type may embed its own next to *Base, which then
// answers instead (a host whose CapabilitySet leaves checkDownload out
// does not offer it).
type Downloads struct {
	mu      sync.Mutex
	pending []*Download // not yet reported by CheckDownload
	// all is every download since WatchDownloads (the newest
	// maxDownloadsKept), reported or forgotten or not: a request with a
	// marker looks for its file there.
	all []*Download
	// watching: WatchDownloads was called. added wakes every CheckDownload
	// waiting (a wait for a marked file and one for the next file both see
	// a new download).
	watching bool
	added    broadcast.Signal
}

// maxDownloadsKept bounds Downloads.all.
const maxDownloadsKept = 100

// Download is one file the browser downloaded, as checkDownload reports it.
type Download struct {
	Filename string `json:"filename"`
	// Requested is the name the page asked for (an anchor's download
	// attribute), before the browser escaped it into Filename; "" when the
	// driver saw none.
	Requested string `json:"requested,omitempty"`
	Content   string `json:"content"`
	Size      int    `json:"size"`
	Error     string `json:"error,omitempty"`

	page  playwright.Page
	start time.Time
	done  chan struct{} // closed when the fields above are final
}

// maxDownloadContent bounds what a report carries of a file.
const maxDownloadContent = 64 << 10

// WatchDownloads starts recording page's downloads.
func (d *Downloads) WatchDownloads(page playwright.Page) {
	d.mu.Lock()
	d.watching = true
	d.mu.Unlock()
	// Event handlers run on playwright-go's dispatch goroutine, and
	// SaveAs blocks until the file is complete: read it elsewhere.
	page.OnDownload(func(dl playwright.Download) { go d.record(dl) })
}

func (d *Downloads) record(pd playwright.Download) {
	// Recorded as soon as it starts, so that a check for "no download"
	// sees one at once; its content is filled in when it has finished.
	dl := &Download{Filename: pd.SuggestedFilename(), page: pd.Page(), start: time.Now(), done: make(chan struct{})}
	d.mu.Lock()
	d.pending = append(d.pending, dl)
	d.all = append(d.all, dl)
	if len(d.all) > maxDownloadsKept {
		d.all = d.all[len(d.all)-maxDownloadsKept:]
	}
	d.mu.Unlock()
	d.added.Notify()
	defer close(dl.done)
	// SaveAs waits for the download to finish, and unlike Path it also
	// works with a remote browser (--browser-ws, --cdp).
	tmp, err := os.MkdirTemp("", "mcpconform-download-")
	if err != nil {
		dl.Error = err.Error()
		return
	}
	defer os.RemoveAll(tmp)
	p := filepath.Join(tmp, "download")
	if err := pd.SaveAs(p); err != nil {
		dl.Error = err.Error()
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		dl.Error = err.Error()
		return
	}
	dl.Size = len(b)
	if len(b) > maxDownloadContent {
		b = b[:maxDownloadContent]
	}
	dl.Content = string(b)
}

// marked takes the newest download whose file name contains marker out of
// those not reported yet and returns it, or nil. d.mu is held.
func (d *Downloads) marked(marker string) *Download {
	for i := len(d.all) - 1; i >= 0; i-- {
		if dl := d.all[i]; strings.Contains(dl.Filename, marker) {
			d.pending = slices.DeleteFunc(d.pending, func(p *Download) bool { return p == dl })
			return dl
		}
	}
	return nil
}

// ForgetDownloads drops downloads not reported yet (resetIsolation).
func (d *Downloads) ForgetDownloads() {
	d.mu.Lock()
	d.pending = nil
	d.mu.Unlock()
}

// CheckDownload reports the oldest download not reported yet, waiting up to
// req.TimeoutMs for one to start (and then for it to finish). With a
// marker it reports the newest download whose file name contains it,
// whenever it came (reported, forgotten by resetIsolation, or not), and
// takes it out of those not reported yet.
func (d *Downloads) CheckDownload(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	var dl *Download
	unwatched := false
	found, err := d.added.Until(ctx, time.Duration(req.TimeoutMs)*time.Millisecond, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		switch {
		case !d.watching:
			unwatched = true
		case req.Marker != "":
			dl = d.marked(req.Marker)
		case len(d.pending) > 0:
			dl = d.pending[0]
			d.pending = d.pending[1:]
		}
		return unwatched || dl != nil
	})
	switch {
	case err != nil:
		return protocol.Result{}, err
	case unwatched:
		return protocol.Result{}, fmt.Errorf("checkDownload: the host never called WatchDownloads")
	case !found:
		return protocol.Result{OK: false, Error: fmt.Sprintf("no download within %d ms", req.TimeoutMs)}, nil
	}
	out := Download{Filename: dl.Filename}
	select {
	case <-dl.done:
		out = *dl
		out.Requested = nameRequestedFor(dl.page, dl.start)
	case <-time.After(10 * time.Second):
		out.Error = "the download did not finish within 10 s"
	case <-ctx.Done():
		return protocol.Result{}, ctx.Err()
	}
	b, _ := json.Marshal(out)
	return protocol.Result{OK: true, Value: b}, nil
}
