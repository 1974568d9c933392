// Package browserhost is the shared base of hosts driven in a browser page.
// It owns the browser context and page, finds the suite through the bridge,
// records console lines and opened tabs, and offers the capability
// building blocks every web product needs. The capabilities any browser
// page gives its driver (checkLinkOpen, inspectFrame, readConsole; caps.go;
// checkDownload, through the Downloads Base embeds) are methods of Base; a product type embeds *Base, supplies its selectors
// and hooks, and declares the other capability methods it really supports
// (often a call into a building block here: ClickInView, Dialogs,
// Downloads), so that a capability a product lacks stays absent and
// answers "unsupported".
package browserhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/broadcast"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/protocol"
)

// Base is the common state of a browser-driven host. Its Downloads
// record what every page of the context downloads: checkDownload is a
// capability of every browser host (a host type that embeds a Downloads
// of its own next to *Base uses that one instead).
type Base struct {
	Downloads

	Ctx   playwright.BrowserContext
	Page  playwright.Page
	Suite *bridge.Suite
	// AppFrame is the host's address of the app iframe: iframe selectors
	// from the top page down.
	AppFrame []string

	traceFile string
	// videoFile is where the page's video is saved at Close; videoTmp the
	// directory Playwright records it into; videoStart when the page, and
	// so its recording, started.
	videoFile, videoTmp string
	videoStart          time.Time

	// logf is the run's log (env.Logf at Open), or nil.
	logf func(string, ...any)
	// EvidenceDir is where the host saves evidence it captures itself
	// (env.EvidenceDir at Open, unless a driver set one before); "" saves
	// none.
	EvidenceDir string

	mu      sync.Mutex
	console []string
	opened  []playwright.Page
	// navigations are the URLs other pages of the context tried to load,
	// recorded at request time so a link counts as opened even when the
	// target refuses the connection or the loopback guard blocks it.
	navigations []string
	// own are the pages the driver opened itself (NewTab): their
	// navigations are not links the app opened.
	own []playwright.Page
	// recorded wakes LinkOpened and ConsoleMatching at each navigation or
	// console line recorded.
	recorded broadcast.Signal

	// prompts is observePrompts' record (prompts.go).
	prompts promptState

	// Throttle is the CPU throttling of the page (Env.CPUThrottle), nil
	// when the run is not slowed.
	Throttle *CPUThrottle
}

// Open creates the browser context and page and starts recording.
func (b *Base) Open(env hosts.Env, opts playwright.BrowserNewContextOptions) error {
	br, ok := env.Browser.(*browser.Browser)
	if !ok {
		return fmt.Errorf("no browser to drive (the run's browser is %T)", env.Browser)
	}
	b.logf = env.Logf
	if env.EvidenceDir != "" {
		b.EvidenceDir = env.EvidenceDir
	}
	if opts.Viewport == nil {
		opts.Viewport = &playwright.Size{Width: 1280, Height: 900}
	}
	if opts.AcceptDownloads == nil {
		opts.AcceptDownloads = playwright.Bool(true)
	}
	if env.VideoFile != "" {
		if !br.Video {
			return errors.New("video recording was asked for, but the browser was launched without browser.Options.Video")
		}
		tmp := filepath.Join(filepath.Dir(env.VideoFile), ".video-recording")
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return fmt.Errorf("video directory: %w", err)
		}
		opts.RecordVideo = &playwright.RecordVideo{Dir: playwright.String(tmp), Size: &playwright.Size{Width: opts.Viewport.Width, Height: opts.Viewport.Height}}
		b.videoFile, b.videoTmp = env.VideoFile, tmp
	}
	c, err := br.NewContext(opts)
	if err != nil {
		return fmt.Errorf("new browser context: %w", err)
	}
	b.Ctx = c
	traceMCP(c)
	b.watchNativePrompts(c)
	if err := watchDownloadNames(c); err != nil {
		c.Close()
		return fmt.Errorf("watching download names: %w", err)
	}
	if err := recordFrameMessages(c); err != nil {
		c.Close()
		return fmt.Errorf("recording frame messages: %w", err)
	}
	if env.TraceFile != "" {
		if err := c.Tracing().Start(playwright.TracingStartOptions{Screenshots: playwright.Bool(true), Snapshots: playwright.Bool(true)}); err != nil {
			c.Close()
			return fmt.Errorf("starting the trace: %w", err)
		}
		b.traceFile = env.TraceFile
	}
	c.OnPage(func(p playwright.Page) {
		b.mu.Lock()
		if b.Page != nil && p != b.Page {
			b.opened = append(b.opened, p)
		}
		b.mu.Unlock()
		b.Downloads.WatchDownloads(p)
	})
	c.OnRequest(func(r playwright.Request) {
		if !r.IsNavigationRequest() {
			return
		}
		// A popup's first navigation is requested before Playwright has
		// announced the popup, so its Frame is nil (playwright-go: "the
		// request was issued before the frame is created"): a page other
		// than the host's and the driver's own, which exist before they
		// navigate. Dropped, that request left a link opened by
		// window.open(url, "_blank", "noopener") seen only when Chromium
		// reloaded the page's error page a second later (links/open-link
		// then passed by a retry, and the headless shell, which does not
		// reload, missed the link altogether).
		f := r.Frame()
		if f != nil && f.ParentFrame() != nil {
			return
		}
		b.mu.Lock()
		if (f == nil || f.Page() != b.Page && !slices.Contains(b.own, f.Page())) && len(b.navigations) < 1000 {
			b.navigations = append(b.navigations, r.URL())
		}
		b.mu.Unlock()
		b.recorded.Notify()
	})
	p, err := c.NewPage()
	if err != nil {
		c.Close()
		return fmt.Errorf("new page: %w", err)
	}
	if env.CPUThrottle > 1 {
		if b.Throttle, err = ThrottleCPU(c, p, env.CPUThrottle); err != nil {
			c.Close()
			return err
		}
	}
	b.mu.Lock()
	b.Page = p
	if b.videoFile != "" {
		b.videoStart = time.Now()
	}
	b.mu.Unlock()
	p.OnConsole(func(m playwright.ConsoleMessage) {
		b.mu.Lock()
		if len(b.console) < 10000 {
			b.console = append(b.console, m.Type()+": "+m.Text())
		}
		b.mu.Unlock()
		b.recorded.Notify()
	})
	return nil
}

// NewTab opens a new page in the host's browser context for the driver's
// own use (a host shows a tool's View in a tab of its own): what it loads
// is not counted as a link the app opened, and Reset closes it like the
// tabs the tests opened.
func (b *Base) NewTab() (playwright.Page, error) {
	if b.Ctx == nil {
		return nil, errors.New("no browser context")
	}
	// Marked before it can navigate: OnPage has already filed it among the
	// opened tabs by the time NewPage returns.
	p, err := b.Ctx.NewPage()
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.own = append(b.own, p)
	b.mu.Unlock()
	return p, nil
}

// BindSuite waits for the app frame and binds the suite bridge to it
// (hosts.FrameBinder): every host built on Base offers its frame.
func (b *Base) BindSuite(ctx context.Context, timeout time.Duration) (hosts.SuiteBridge, error) {
	s, err := bridge.FindSuite(ctx, b.Ctx, b.Page, b.AppFrame, timeout)
	if err != nil {
		return nil, err
	}
	b.Suite = s
	return s, nil
}

// Close saves the trace, if one is recorded, and closes the context (and
// with it every page it opened).
func (b *Base) Close() error {
	if b.Ctx == nil {
		return nil
	}
	var terr error
	if b.traceFile != "" {
		if err := os.MkdirAll(filepath.Dir(b.traceFile), 0o755); err == nil {
			terr = b.Ctx.Tracing().Stop(b.traceFile)
		}
	}
	done := make(chan error, 1)
	go func() { done <- b.Ctx.Close() }()
	select {
	case err := <-done:
		return errors.Join(terr, err, b.saveVideo())
	case <-time.After(10 * time.Second):
		return errors.Join(terr, errors.New("closing the browser context timed out"))
	}
}

// VideoStartedAt is when the recording of the host page's video started
// (zero when none is recorded); the runner marks each check's start in
// the video from it.
func (b *Base) VideoStartedAt() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.videoStart
}

// saveVideo moves the page's finished video (the context is closed) to
// videoFile. Closing the context finishes the recording.
func (b *Base) saveVideo() error {
	if b.videoFile == "" || b.Page == nil {
		return nil
	}
	defer os.RemoveAll(b.videoTmp)
	v := b.Page.Video()
	if v == nil {
		return errors.New("the page recorded no video")
	}
	if err := v.SaveAs(b.videoFile); err != nil {
		return fmt.Errorf("saving the video: %w", err)
	}
	return nil
}

// TakeEvidence saves a screenshot of the host page and the console lines
// seen so far. Screenshots can contain logged-in page content.
func (b *Base) TakeEvidence(ctx context.Context, dir, base string) ([]string, error) {
	if b.Page == nil {
		return nil, errors.New("no page")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	var errs []error
	png := filepath.Join(dir, base+".png")
	if _, err := b.Page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(png), Timeout: playwright.Float(5000)}); err != nil {
		errs = append(errs, fmt.Errorf("screenshot: %w", err))
	} else {
		paths = append(paths, png)
	}
	b.mu.Lock()
	lines := b.console
	if len(lines) > 500 {
		lines = lines[len(lines)-500:]
	}
	text := strings.Join(lines, "\n") + "\n"
	b.mu.Unlock()
	txt := filepath.Join(dir, base+".console.txt")
	if err := os.WriteFile(txt, []byte(text), 0o644); err != nil {
		errs = append(errs, err)
	} else {
		paths = append(paths, txt)
	}
	return paths, errors.Join(errs...)
}

// Click delivers a real click to the suite's trigger button.
func (b *Base) Click(ctx context.Context) (protocol.Result, error) {
	if b.Suite == nil {
		return protocol.Result{}, errors.New("suite not bound")
	}
	presses, err := bridge.ClickTrigger(ctx, b.Page, b.Suite)
	if presses > 1 && b.logf != nil {
		// Said, not hidden: a press lost on its way to the button was the
		// driver's stale aim once (bridge.aim), and would be again.
		b.logf("the trigger's press was made %d times: the button did not count the first within 2 s", presses)
	}
	if err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	return protocol.Result{OK: true}, nil
}

// TextContains waits up to timeout for marker to appear in the text of the
// element sel on the host page (a conversation, typically).
func (b *Base) TextContains(ctx context.Context, sel, marker string, timeout time.Duration) (protocol.Result, error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ms := float64(timeout.Milliseconds())
	_, err := b.Page.WaitForFunction(`([sel, marker]) => { const e = document.querySelector(sel); return !!e && e.innerText.includes(marker); }`,
		[]any{sel, marker}, playwright.PageWaitForFunctionOptions{Timeout: &ms})
	if err == nil {
		return protocol.Result{OK: true, Value: MustJSON(true)}, nil
	}
	if errors.Is(err, playwright.ErrTimeout) || strings.Contains(err.Error(), "Timeout") {
		return protocol.Result{OK: false, Value: MustJSON(false)}, nil
	}
	return protocol.Result{}, err
}

// ReadMessageRole waits up to timeout for marker in the text of an element
// matching conv, then says whose message shows it: "user" when an element
// matching user contains it, "assistant" when one matching assistant
// does (assistant may be empty: the driver cannot tell), else "other".
// The user's wins: an assistant that quotes the user's message back must
// not hide where the message itself went. OK is false when the marker
// never appears.
func (b *Base) ReadMessageRole(ctx context.Context, conv, user, assistant, marker string, timeout time.Duration) (protocol.Result, error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ms := float64(timeout.Milliseconds())
	h, err := b.Page.WaitForFunction(`([conv, user, assistant, marker]) => {
		const has = (sel) => !!sel && [...document.querySelectorAll(sel)].some((e) => e.innerText.includes(marker));
		if (!has(conv)) return null;
		return has(user) ? "user" : has(assistant) ? "assistant" : "other";
	}`, []any{conv, user, assistant, marker}, playwright.PageWaitForFunctionOptions{Timeout: &ms})
	if err != nil {
		if errors.Is(err, playwright.ErrTimeout) || strings.Contains(err.Error(), "Timeout") {
			return protocol.Result{OK: false, Error: fmt.Sprintf("%s did not appear in the conversation within %s", marker, timeout)}, nil
		}
		return protocol.Result{}, err
	}
	v, err := h.JSONValue()
	if err != nil {
		return protocol.Result{}, err
	}
	role, _ := v.(string)
	return protocol.Result{OK: true, Value: MustJSON(role)}, nil
}

// ClickWhenVisible clicks sel on the host page once it is visible.
//
// The click does not wait for a navigation it starts: a host's confirm
// button that opens the link (or navigates) would otherwise count the new
// page's load against timeout, and on a loaded machine a click that was
// made ended in a timeout read as "no dialog appeared" (links/open-link
// FAILed so once in CI, 2026-12-03, under the rerender-once variation).
func (b *Base) ClickWhenVisible(sel string, timeout time.Duration) error {
	ms := float64(timeout.Milliseconds())
	return b.Page.Locator(sel).First().Click(playwright.LocatorClickOptions{Timeout: &ms, NoWaitAfter: playwright.Bool(true)})
}

// LinkOpened waits up to timeout for a new page whose URL starts with url.
// A popup may still be navigating from about:blank when asked: its
// request is recorded, and wakes the wait, when it starts.
func (b *Base) LinkOpened(ctx context.Context, url string, timeout time.Duration) (protocol.Result, error) {
	var seen []string
	hit := ""
	ok, err := b.waitRecorded(ctx, timeout, func() bool {
		b.mu.Lock()
		seen = append([]string(nil), b.navigations...)
		b.mu.Unlock()
		for _, u := range seen {
			if strings.HasPrefix(u, url) {
				hit = u
				return true
			}
		}
		return false
	})
	switch {
	case err != nil:
		return protocol.Result{}, err
	case ok:
		return protocol.Result{OK: true, Value: MustJSON(hit)}, nil
	}
	return protocol.Result{OK: false, Error: fmt.Sprintf("no page opened %s within %s (opened: %q)", url, timeout, seen)}, nil
}

// ConsoleMatching waits up to timeout for console lines matching pattern.
func (b *Base) ConsoleMatching(ctx context.Context, pattern string, timeout time.Duration) (protocol.Result, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return protocol.Result{OK: false, Error: "bad pattern: " + err.Error()}, nil
	}
	var hits []string
	ok, err := b.waitRecorded(ctx, timeout, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		hits = nil
		for _, l := range b.console {
			if re.MatchString(l) {
				hits = append(hits, l)
			}
		}
		return len(hits) > 0
	})
	switch {
	case err != nil:
		return protocol.Result{}, err
	case ok:
		return protocol.Result{OK: true, Value: MustJSON(hits)}, nil
	}
	return protocol.Result{OK: false, Value: MustJSON([]string{})}, nil
}

// waitRecorded calls look at once and after each navigation or console
// line recorded, until it returns true, the timeout passes (after one last
// look) or ctx ends.
func (b *Base) waitRecorded(ctx context.Context, timeout time.Duration, look func() bool) (bool, error) {
	return b.recorded.Until(ctx, timeout, look)
}

// FrameInfo describes the iframes around the View, read from the host DOM
// (not inferred from inside the View).
type FrameInfo struct {
	Outer map[string]string `json:"outer"` // sandbox, allow, src of the proxy iframe
	Inner map[string]string `json:"inner"` // the same for the View's iframe
}

// Inspect reads the sandbox, allow and src attributes of the app iframe and
// its parent iframe. Attribute reads run in the parent frames, never in the
// View, so they give the View no user activation.
func (b *Base) Inspect(ctx context.Context) (protocol.Result, error) {
	info, err := b.Frames(ctx)
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: true, Value: MustJSON(info)}, nil
}

// Frames reads the attributes of the View's iframe and, when the View is
// nested in one, of the sandbox proxy iframe around it.
func (b *Base) Frames(ctx context.Context) (FrameInfo, error) {
	if b.Suite == nil {
		return FrameInfo{}, errors.New("suite not bound")
	}
	attrs := func(f playwright.Frame) (map[string]string, error) {
		el, err := f.FrameElement()
		if err != nil {
			return nil, err
		}
		// Every attribute present on the element; an absent sandbox and an
		// empty one mean opposite things, so presence is kept.
		v, err := el.Evaluate(`e => Object.fromEntries(e.getAttributeNames().map(n => [n, n === "srcdoc" ? "(present)" : e.getAttribute(n)]))`, nil)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				out[k] = fmt.Sprint(x)
			}
		}
		return out, nil
	}
	view := b.Suite.Frame()
	var info FrameInfo
	var err error
	if info.Inner, err = attrs(view); err != nil {
		return FrameInfo{}, err
	}
	if parent := view.ParentFrame(); parent != nil && parent.ParentFrame() != nil {
		if info.Outer, err = attrs(parent); err != nil {
			return FrameInfo{}, err
		}
	}
	return info, nil
}

// Reset returns the page to a neutral state between manual tests: closes
// tabs the tests (and NewTab) opened, forgets downloads not reported yet
// and dismisses dialogs.
func (b *Base) Reset(ctx context.Context) (protocol.Result, error) {
	b.mu.Lock()
	pages := b.opened
	b.opened, b.navigations, b.own = nil, nil, nil
	b.mu.Unlock()
	for _, p := range pages {
		p.Close()
	}
	b.Downloads.ForgetDownloads()
	if err := PressInPage(b.Page, "Escape"); err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: true}, nil
}

// PressInPage presses key for the host page: a key goes to the focused
// frame, and after a click into a View (a request made on the user's
// gesture) that is the View's document, so the focus goes back to the page
// first. Without it Reset's Escape never reached a host's question, which
// then covered the page for every later check (the tool picker, the
// trigger: a dozen reds for one prompt, two reference defects together).
// Focus on the page's own elements (a composer) stays where it is.
func PressInPage(page playwright.Page, key string) error {
	if _, err := page.Evaluate(`() => { if (document.activeElement instanceof HTMLIFrameElement) document.activeElement.blur(); }`); err != nil {
		return err
	}
	return page.Keyboard().Press(key)
}

// MustJSON is v as JSON (a Result's Value); v must be marshalable.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// SuiteFrameElement is the host page's own iframe around the suite: the
// sandbox proxy's, or the View's when there is no proxy. Scrolling from
// inside an out-of-process frame does not reach the page's scroll
// containers, so the host scrolls this element.
func (b *Base) SuiteFrameElement() (playwright.ElementHandle, error) {
	if b.Suite == nil {
		return nil, errors.New("suite not bound")
	}
	f := b.Suite.Frame()
	for f.ParentFrame() != nil && f.ParentFrame().ParentFrame() != nil {
		f = f.ParentFrame()
	}
	return f.FrameElement()
}

// ClickInView clicks the suite's trigger for real, as Click does, after
// scrolling the suite's iframe into view (other Views a host shows can
// have scrolled it away); a click that still fails (the pointer never
// reached the button, every press lost: bridge.ClickTrigger) is tried
// again after scrolling anew, three times in all.
func (b *Base) ClickInView(ctx context.Context) (protocol.Result, error) {
	var r protocol.Result
	for attempt := 0; attempt < 3; attempt++ {
		if el, err := b.SuiteFrameElement(); err == nil {
			el.ScrollIntoViewIfNeeded(playwright.ElementHandleScrollIntoViewIfNeededOptions{Timeout: playwright.Float(2000)})
		}
		var err error
		if r, err = b.Click(ctx); err != nil || r.OK {
			return r, err
		}
	}
	return r, nil
}

// FirstLine is the first line of err's message, trimmed: Playwright
// appends its call log to every error, which a report does not want.
func FirstLine(err error) string {
	s, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return s
}

// ControlWait is how long a driver waits for a host's own control (a
// button it presses for the user: Close, Stop, a tool picker) to be there
// and pressable. Playwright presses a control only once its layout has
// settled, which on a loaded machine or a throttled page takes a while,
// and the expiry is a verdict on the host only by way of the driver's
// failure: the wait is generous (docs/audit-timing.md).
const ControlWait = 15 * time.Second

// ClickUntilGone clicks a host's control sel on page (within ControlWait)
// and waits up to timeout until the element gone is detached: how a driver
// closes a View with the host's own control. what names the control in
// the failed Result.
func ClickUntilGone(page playwright.Page, sel, gone, what string, timeout time.Duration) protocol.Result {
	return PressUntilGone(page, func() error {
		return page.Locator(sel).Click(playwright.LocatorClickOptions{Timeout: playwright.Float(float64(ControlWait.Milliseconds()))})
	}, gone, what, timeout)
}

// PressUntilGone is ClickUntilGone with the press of the control given (a
// page whose layout moves under a mouse click presses its own controls
// another way).
func PressUntilGone(page playwright.Page, press func() error, gone, what string, timeout time.Duration) protocol.Result {
	if err := press(); err != nil {
		return protocol.Result{OK: false, Error: "could not press " + what + ": " + FirstLine(err)}
	}
	ms := float64(timeout.Milliseconds())
	if err := page.Locator(gone).WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: &ms}); err != nil {
		return protocol.Result{OK: false, Error: "the View was not removed after " + what + ": " + FirstLine(err)}
	}
	return protocol.Result{OK: true}
}

// OpenForSetup is Open as a driver's Setup wants it: downloads accepted,
// and any native dialog of the host page dismissed (one would block the
// renderer, and the View with it).
func (b *Base) OpenForSetup(env hosts.Env) error {
	if err := b.Open(env, playwright.BrowserNewContextOptions{AcceptDownloads: playwright.Bool(true)}); err != nil {
		return err
	}
	b.Page.OnDialog(func(d playwright.Dialog) { d.Dismiss() })
	return nil
}

var _ hosts.FrameBinder = (*Base)(nil)
