package browserhost

import (
	"fmt"
	"sync"

	"github.com/mxschmitt/playwright-go"
)

// CPUThrottle slows the renderers of a browser context's pages, as a
// loaded machine does, so that a run can show that no verdict depends on
// how fast the host reacts (docs/audit-timing.md).
//
// Emulation.setCPUThrottlingRate acts on the renderer process of the CDP
// target it is sent to. A cross-site frame (the reference host's sandbox
// proxy on localhost under a 127.0.0.1 page, a sandboxed View Chromium
// isolates) runs in a process of its own and is a target of its own: the
// rate is set there too, from a session opened on the frame. The sessions
// stay attached, because the emulation ends when its session detaches.
type CPUThrottle struct {
	bctx playwright.BrowserContext
	rate float64

	mu       sync.Mutex
	sessions []playwright.CDPSession
	frames   []string // URLs of the out-of-process frames throttled
	errs     []error
}

// ThrottleCPU slows page, and every out-of-process frame it navigates to
// from now on (and already has), rate times. Call it before the page
// loads the host, so that no frame escapes.
func ThrottleCPU(bctx playwright.BrowserContext, page playwright.Page, rate float64) (*CPUThrottle, error) {
	if rate < 1 {
		return nil, fmt.Errorf("CPU throttling rate %g: want at least 1", rate)
	}
	c := &CPUThrottle{bctx: bctx, rate: rate}
	s, err := bctx.NewCDPSession(page)
	if err != nil {
		return nil, fmt.Errorf("CPU throttling: a CDP session for the page: %w", err)
	}
	if err := c.apply(s); err != nil {
		return nil, err
	}
	// A Playwright call made inside an event handler would wait for the
	// event loop that runs the handler: the frame is throttled from a
	// goroutine. A frame that commits a navigation is a new document, and
	// may be a new process: it is throttled again (the rate is the
	// process's, so a second setting is harmless).
	page.OnFrameNavigated(func(f playwright.Frame) { go c.frame(f) })
	for _, f := range page.Frames() {
		if f != page.MainFrame() {
			c.frame(f)
		}
	}
	return c, nil
}

func (c *CPUThrottle) apply(s playwright.CDPSession) error {
	if _, err := s.Send("Emulation.setCPUThrottlingRate", map[string]any{"rate": c.rate}); err != nil {
		s.Detach()
		return fmt.Errorf("Emulation.setCPUThrottlingRate %g: %w", c.rate, err)
	}
	c.mu.Lock()
	c.sessions = append(c.sessions, s)
	c.mu.Unlock()
	return nil
}

// frame throttles f's process when f is out of process. A frame in its
// parent's process has no session of its own (NewCDPSession refuses it):
// the parent's setting covers it.
func (c *CPUThrottle) frame(f playwright.Frame) {
	if f.ParentFrame() == nil || f.IsDetached() {
		return
	}
	s, err := c.bctx.NewCDPSession(f)
	if err != nil {
		return
	}
	if err := c.apply(s); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, fmt.Errorf("%s: %w", f.URL(), err))
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.frames = append(c.frames, f.URL())
	c.mu.Unlock()
}

// Frames are the URLs of the out-of-process frames throttled so far, in
// the order they were (a frame that navigated again appears again).
func (c *CPUThrottle) Frames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.frames...)
}

// Errors are the frames whose throttling failed (a frame that went away
// between its navigation and the setting, typically).
func (c *CPUThrottle) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}
