package browser

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
)

// Options configure the driver and the browser.
type Options struct {
	Paths    Paths
	Headed   bool
	Logf     func(format string, args ...any)
	ExtraArg []string
	// WSEndpoint, when set, connects to a Playwright browser server (the
	// ws:// URL `playwright run-server` or BrowserType.launchServer prints)
	// instead of launching Chromium here. See remote.go.
	WSEndpoint string
	// CDPURL, when set, attaches to a running Chromium (or an Electron app)
	// started with --remote-debugging-port: its http:// or ws:// endpoint.
	CDPURL string
	// AllowHosts are host names (with their subdomains) the browser may
	// reach besides loopback: a hosted product under test (chatgpt.com).
	// Everything else stays refused.
	AllowHosts []string
	// Video prepares the driver to record videos (BrowserNewContextOptions.
	// RecordVideo): Launch fails with ErrNoFFmpeg where no FFmpeg that can
	// encode VP9 is found (see prepareFFmpeg). A remote browser records
	// with the FFmpeg of the machine it runs on.
	Video bool
}

// Browser is one Playwright driver and one Chromium, started once per process
// and shared by every host and context.
type Browser struct {
	PW      *playwright.Playwright
	Browser playwright.Browser
	Paths   Paths
	// Executable is the binary launched: Paths.Browser, or the headless
	// shell beside it for a headless run (HeadlessShell); "" for a remote
	// browser.
	Executable    string
	HeadlessShell bool
	scratch       string
	// blackhole is the proxy every non-loopback request is sent to: it
	// closes each connection at once, so nothing leaves the machine.
	blackhole net.Listener
	once      sync.Once
	gone      chan struct{}

	// DriverStart is how long finding Node and starting the Playwright
	// driver took (playwright-go's own `node cli.js --version` check
	// included); BrowserLaunch how long launching Chromium, or connecting
	// to a remote one, took.
	DriverStart   time.Duration
	BrowserLaunch time.Duration
	// Remote names the endpoint of a browser mcpconform did not launch
	// ("" for a local launch), without credentials or query. Its contexts
	// get the loopback guard as a per-context proxy instead of a launch
	// flag (see remote.go).
	Remote string
	// PopupsUnblocked reports a remote browser running with
	// --disable-popup-blocking, where gesture-gated checks prove nothing.
	PopupsUnblocked bool
	// Video is set when the driver was prepared to record videos
	// (Options.Video).
	Video bool
}

// Gone is closed when the browser disconnects (crash, kill, close).
func (b *Browser) Gone() <-chan struct{} { return b.gone }

// Launch installs the driver when needed, starts it and launches Chromium:
// the browser Locate finds, else Playwright's Chromium, which it downloads
// into Playwright's browsers directory (installChromium) unless
// MCPCONFORM_NO_BROWSER_DOWNLOAD=1.
func Launch(o Options) (*Browser, error) {
	if o.WSEndpoint != "" && o.CDPURL != "" {
		return nil, errors.New("a Playwright browser server (WSEndpoint) and a CDP endpoint (CDPURL) exclude each other")
	}
	if o.WSEndpoint != "" || o.CDPURL != "" {
		return connectRemote(o)
	}
	t0 := time.Now()
	paths, err := locate(o.Paths)
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
	if paths.Browser == "" {
		dl := time.Now()
		if paths.Browser, err = installChromium(paths, logf); err != nil {
			os.RemoveAll(scratch)
			return nil, err
		}
		t0 = t0.Add(time.Since(dl)) // DriverStart leaves the download out
	}
	browsersPath := ""
	if o.Video {
		if browsersPath, err = prepareFFmpeg(paths.DriverDir, scratch); err != nil {
			os.RemoveAll(scratch)
			return nil, err
		}
	}
	var pw *playwright.Playwright
	err = withBrowsersPath(browsersPath, func() (err error) {
		pw, err = playwright.Run(run)
		return err
	})
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("%w: %v", ErrDriver, err)
	}
	driverStart := time.Since(t0)
	hole, err := guard(o.AllowHosts)
	if err != nil {
		pw.Stop()
		os.RemoveAll(scratch)
		return nil, err
	}
	exe, args := paths.Browser, launchArgs(hole.Addr().String(), o.ExtraArg)
	shell := ""
	if !o.Headed && explicitBrowser(o.Paths.Browser) == "" {
		shell = headlessShellBeside(paths.Browser)
	}
	if shell != "" {
		exe = shell
		// The shell does not isolate sites by default: a cross-site frame
		// (a sandbox proxy, a View) would share its parent's process,
		// unlike in the browser a host's users run (and a throttled run
		// could not reach it: TestVerdictsIndependentOfSpeed). Isolated,
		// it still costs about 30 % less CPU than the full browser.
		args = append(args, "--site-per-process")
		logf("headless: Chromium's headless shell %s (--browser %s runs the full browser headless)", shell, paths.Browser)
	}
	t1 := time.Now()
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
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
		if strings.HasPrefix(paths.Browser, playwrightBrowsersDir(paths.DriverDir)+string(filepath.Separator)) {
			// Playwright's build needs the system's libraries that a distro's
			// own Chromium package brings along.
			return nil, fmt.Errorf("launching Playwright's Chromium %s (install Debian's chromium, which brings the libraries it needs: apt-get install chromium): %w", paths.Browser, err)
		}
		return nil, fmt.Errorf("launching %s: %w", exe, err)
	}
	br := &Browser{PW: pw, Browser: b, Paths: paths, Executable: exe, HeadlessShell: shell != "", scratch: scratch, blackhole: hole, gone: make(chan struct{}),
		DriverStart: driverStart, BrowserLaunch: time.Since(t1), Video: o.Video}
	br.watch()
	return br, nil
}

// launchArgs are the Chromium flags of every browser mcpconform launches,
// locally or through a Playwright browser server.
func launchArgs(guard string, extra []string) []string {
	return append([]string{
		"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage",
		// Tests and runs may only reach loopback. Chromium bypasses a proxy
		// for loopback by itself (localhost, 127.0.0.0/8, ::1) and sends
		// everything else, IP literals and WebSockets included, to this
		// proxy, which refuses it. Unlike a Playwright route, this costs no
		// driver round trip per request.
		"--proxy-server=http://" + guard,
	}, extra...)
}

// watch closes gone when the browser disconnects.
func (b *Browser) watch() {
	var goneOnce sync.Once
	b.Browser.OnDisconnected(func(playwright.Browser) { goneOnce.Do(func() { close(b.gone) }) })
}

// Version is the browser's version string.
func (b *Browser) Version() string {
	if b.HeadlessShell {
		return "Chromium headless shell " + b.Browser.Version()
	}
	return "Chromium " + b.Browser.Version()
}

// headlessShellNames are the names Chromium's headless shell goes by: Debian's
// chromium-headless-shell package, Chrome for Testing's chrome-headless-shell,
// and a build's own headless_shell.
var headlessShellNames = []string{"chromium-headless-shell", "chrome-headless-shell", "headless_shell"}

// headlessShellBeside returns Chromium's headless shell installed in the
// directory of browser (Debian: /usr/lib/chromium/chromium-headless-shell
// beside /usr/lib/chromium/chromium; /usr/bin has both wrappers), or "".
//
// Why a headless run prefers it: it is the same Blink and V8 without the
// browser's UI layer, and a run of the reference host's catalogue cost
// 22.1 CPU-s in it (sites isolated, as Launch runs it) against 32.3 in the
// full browser in headless mode, and 660 against 808 MiB (medians of three,
// docs/performance.md); CI's 30 minutes are CPU-bound. Playwright's own
// default for headless is the same shell. An explicit --browser or
// MCPCONFORM_BROWSER is launched as given.
func headlessShellBeside(browser string) string {
	if browser == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(browser); err == nil {
		browser = r
	}
	for _, name := range headlessShellNames {
		c := filepath.Join(filepath.Dir(browser), name)
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 && c != browser {
			return c
		}
	}
	return ""
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
		if b.scratch != "" {
			os.RemoveAll(b.scratch)
		}
	})
	return err
}

// NewContext opens an isolated browser context. Like every context of this
// browser, it reaches loopback only: a launched browser through its launch
// flags (see Launch), a remote one through a per-context proxy (see
// guardProxy in remote.go).
func (b *Browser) NewContext(opts playwright.BrowserNewContextOptions) (playwright.BrowserContext, error) {
	if b.Remote != "" && opts.Proxy == nil {
		opts.Proxy = b.guardProxy()
	}
	return b.Browser.NewContext(opts)
}

// NewPage opens a page in a new context (NewContext with default options).
// The caller closes the context, which closes the page.
func (b *Browser) NewPage() (playwright.BrowserContext, playwright.Page, error) {
	return b.NewPageWith(playwright.BrowserNewContextOptions{})
}

// NewPageWith is NewPage of a context with opts.
func (b *Browser) NewPageWith(opts playwright.BrowserNewContextOptions) (playwright.BrowserContext, playwright.Page, error) {
	c, err := b.NewContext(opts)
	if err != nil {
		return nil, nil, err
	}
	p, err := c.NewPage()
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, p, nil
}

// installChromium downloads Playwright's Chromium (without the headless
// shell) with the driver's own installer into playwrightBrowsersDir and
// returns its binary. Where the download is off or fails, the error is
// ErrNoBrowser, naming what to install, what was searched, where the
// download went and why it failed.
func installChromium(p Paths, logf func(string, ...any)) (string, error) {
	dir := playwrightBrowsersDir(p.DriverDir)
	if noBrowserDownload() {
		return "", noBrowser(p, fmt.Sprintf("downloading Playwright's Chromium into %s is off (%s is set)", dir, EnvNoBrowserDownload))
	}
	logf("no Chromium found: downloading Playwright's Chromium into %s (set %s=1 not to download)", dir, EnvNoBrowserDownload)
	drv, err := playwright.NewDriver(&playwright.RunOptions{DriverDirectory: p.DriverDir, Verbose: false, Stdout: os.Stderr, Stderr: os.Stderr})
	if err != nil {
		return "", noBrowser(p, fmt.Sprintf("downloading Playwright's Chromium into %s failed: %v", dir, err))
	}
	cmd := drv.Command("install", "--no-shell", "chromium")
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_BROWSERS_PATH="+dir, "PLAYWRIGHT_DOWNLOAD_NO_PROGRESS=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err = cmd.Run()
	// A complete Chromium is all a run needs, even where the installer
	// failed later on (on FFmpeg, which only records videos).
	if b := playwrightChromium(dir); b != "" {
		if err != nil {
			logf("the Playwright installer failed after Chromium was in place (%v): %s", err, lastLines(out.String(), 4, 600))
		}
		logf("downloaded Playwright's Chromium to %s in %s", b, time.Since(t0).Round(time.Second))
		return b, nil
	}
	if err == nil {
		err = errors.New("the installer finished but left no Chromium there")
	}
	return "", noBrowser(p, fmt.Sprintf("downloading Playwright's Chromium into %s failed (%v):\n%s", dir, err, lastLines(out.String(), 12, 2000)))
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// lastLines is the end of s without colours, JavaScript stack frames and
// repeated lines (the installer retries): at most n lines and max bytes.
func lastLines(s string, n, max int) string {
	var lines []string
	seen := map[string]bool{}
	for _, l := range strings.Split(ansiEscape.ReplaceAllString(strings.TrimSpace(s), ""), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "at ") && !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s = strings.Join(lines, "\n")
	if len(s) > max {
		s = "…" + s[len(s)-max:]
	}
	return s
}

// A Browser is the run's hosts.Browser.
var _ hosts.Browser = (*Browser)(nil)
