package bridge

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// Options configure the driver and the browser.
type Options struct {
	Paths    Paths
	Headed   bool
	Logf     func(format string, args ...any)
	ExtraArg []string
}

// Browser is one Playwright driver and one Chromium, started once per process
// and shared by every host and context.
type Browser struct {
	PW      *playwright.Playwright
	Browser playwright.Browser
	Paths   Paths
	scratch string
	// blackhole is the proxy every non-loopback request is sent to: it
	// closes each connection at once, so nothing leaves the machine.
	blackhole net.Listener
	once      sync.Once
	gone      chan struct{}
}

// ErrBrowserGone means the browser process exited or crashed under the run.
var ErrBrowserGone = errors.New("the browser crashed or was closed")

// Gone is closed when the browser disconnects (crash, kill, close).
func (b *Browser) Gone() <-chan struct{} { return b.gone }

// Launch installs the driver when needed, starts it and launches Chromium.
func Launch(o Options) (*Browser, error) {
	paths, err := Locate(o.Paths)
	if err != nil {
		return nil, err
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	// playwright-go reads these from the environment in Install and Run.
	os.Setenv("PLAYWRIGHT_NODEJS_PATH", paths.Node)
	os.Setenv("PLAYWRIGHT_DRIVER_PATH", paths.DriverDir)
	scratch, err := os.MkdirTemp("", "mcpconform-browser-")
	if err != nil {
		return nil, err
	}
	// Debian's Chromium writes its crash database under XDG_CONFIG_HOME even
	// with a temporary profile; keep it in our scratch directory.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(scratch, "config"))

	run := &playwright.RunOptions{DriverDirectory: paths.DriverDir, SkipInstallBrowsers: true, Verbose: false, Stdout: os.Stderr, Stderr: os.Stderr}
	if !driverInstalled(paths.DriverDir) {
		logf("installing the Playwright driver %s into %s (from the npm registry)", DriverVersion, paths.DriverDir)
		if err := playwright.Install(run); err != nil {
			os.RemoveAll(scratch)
			return nil, fmt.Errorf("%w: %v", ErrDriver, err)
		}
	}
	pw, err := playwright.Run(run)
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("%w: %v", ErrDriver, err)
	}
	hole, err := blackhole()
	if err != nil {
		pw.Stop()
		os.RemoveAll(scratch)
		return nil, err
	}
	args := append([]string{
		"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage",
		// Tests and runs may only reach loopback. Chromium bypasses a proxy
		// for loopback by itself (localhost, 127.0.0.0/8, ::1) and sends
		// everything else, IP literals and WebSockets included, to this
		// proxy, which refuses it. Unlike a Playwright route, this costs no
		// driver round trip per request.
		"--proxy-server=http://" + hole.Addr().String(),
	}, o.ExtraArg...)
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(paths.Browser),
		Headless:       playwright.Bool(!o.Headed),
		Args:           args,
		// Popups opened without a user gesture must be blocked as in a real
		// browser, or gesture-gated checks prove nothing.
		IgnoreDefaultArgs: []string{"--disable-popup-blocking"},
	})
	if err != nil {
		hole.Close()
		pw.Stop()
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("launching %s: %w", paths.Browser, err)
	}
	br := &Browser{PW: pw, Browser: b, Paths: paths, scratch: scratch, blackhole: hole, gone: make(chan struct{})}
	var goneOnce sync.Once
	b.OnDisconnected(func(playwright.Browser) { goneOnce.Do(func() { close(br.gone) }) })
	return br, nil
}

// blackhole is an HTTP proxy on loopback that refuses every request with
// 403 and a message naming the blocked destination, so a blocked load is
// easy to recognise in screenshots and console lines.
func blackhole() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback guard: %w", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "mcpconform blocked a request to %s: test browsers may only reach loopback\n", r.Host)
	})}
	go srv.Serve(ln)
	return ln, nil
}

// Version is the browser's version string.
func (b *Browser) Version() string {
	return "Chromium " + b.Browser.Version()
}

// Close closes the browser and stops the driver. It is safe to call twice.
func (b *Browser) Close() error {
	var err error
	b.once.Do(func() {
		// A crashed browser can leave Close waiting on a dead connection;
		// stopping the driver below ends whatever is left.
		done := make(chan error, 1)
		go func() { done <- b.Browser.Close() }()
		select {
		case e := <-done:
			err = e
		case <-time.After(10 * time.Second):
			err = errors.New("closing the browser timed out")
		}
		if e := b.PW.Stop(); e != nil && err == nil {
			err = e
		}
		b.blackhole.Close()
		os.RemoveAll(b.scratch)
	})
	return err
}

// NewContext opens an isolated browser context. Like every context of this
// browser, it reaches loopback only (see Launch).
func (b *Browser) NewContext(opts playwright.BrowserNewContextOptions) (playwright.BrowserContext, error) {
	return b.Browser.NewContext(opts)
}
