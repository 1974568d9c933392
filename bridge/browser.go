package bridge

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

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
	once    sync.Once
}

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
	args := append([]string{
		"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage",
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
		pw.Stop()
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("launching %s: %w", paths.Browser, err)
	}
	return &Browser{PW: pw, Browser: b, Paths: paths, scratch: scratch}, nil
}

// Version is the browser's version string.
func (b *Browser) Version() string {
	return "Chromium " + b.Browser.Version()
}

// Close closes the browser and stops the driver. It is safe to call twice.
func (b *Browser) Close() error {
	var err error
	b.once.Do(func() {
		if e := b.Browser.Close(); e != nil {
			err = e
		}
		if e := b.PW.Stop(); e != nil && err == nil {
			err = e
		}
		os.RemoveAll(b.scratch)
	})
	return err
}

// NewContext opens an isolated browser context whose requests may only go to
// loopback addresses: tests never send traffic off this machine.
func (b *Browser) NewContext(opts playwright.BrowserNewContextOptions) (playwright.BrowserContext, error) {
	c, err := b.Browser.NewContext(opts)
	if err != nil {
		return nil, err
	}
	if err := c.Route("**/*", func(r playwright.Route) {
		if IsLoopbackURL(r.Request().URL()) {
			_ = r.Continue()
			return
		}
		_ = r.Abort("blockedbyclient")
	}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// IsLoopbackURL reports whether u points at this machine (127.0.0.0/8, ::1,
// localhost) or carries no network address at all (data:, blob:, about:).
func IsLoopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	switch p.Scheme {
	case "data", "blob", "about":
		return true
	case "http", "https", "ws", "wss":
	default:
		return false
	}
	host := p.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
