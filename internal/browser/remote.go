package browser

// Remote browsers: a Playwright browser server (Options.WSEndpoint, the
// ws:// URL `playwright run-server` prints) or a running Chromium or
// Electron app with remote debugging (Options.CDPURL). The Playwright driver
// still runs here; only the browser is somewhere else.
//
// The loopback guard. A launched browser gets --proxy-server pointing at the
// guard, so every non-loopback request is refused (see Launch). A remote
// browser's flags are not ours to set: a CDP target was started by someone
// else, and a Playwright server drops client launch args unless it runs with
// --unsafe. So every context of a remote browser gets the same guard as a
// per-context proxy instead (BrowserNewContextOptions.Proxy, which Chromium
// applies through Target.createBrowserContext). Trade-offs:
//   - the guard covers the contexts mcpconform opens, not the remote
//     browser's default context or pages someone else opens in it;
//   - the browser must share this machine's loopback (same host, or the same
//     network namespace, such as a sidecar container): the guard, the
//     fixture servers and the reference host all listen on 127.0.0.1 here.
//     A browser elsewhere cannot reach them; its non-loopback traffic then
//     fails at the unreachable proxy, so the guard still fails closed;
//   - a Playwright server without --unsafe also drops ignoreDefaultArgs and
//     keeps Playwright's --disable-popup-blocking, so popups open without a
//     user gesture there. Connecting tries a popup without a gesture and
//     warns (Browser.PopupsUnblocked) when it opens.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
)

// guardBypass lists loopback explicitly, which also tells Playwright not to
// add "<-loopback>" (it would send loopback to the guard too). Chromium's
// implicit bypass rules (localhost, *.localhost, 127.0.0.0/8, [::1]) stay.
const guardBypass = "localhost,127.0.0.1,[::1]"

// guardProxy is the loopback guard as a per-context proxy.
func (b *Browser) guardProxy() *playwright.Proxy {
	return &playwright.Proxy{Server: "http://" + b.blackhole.Addr().String(), Bypass: playwright.String(guardBypass)}
}

// RemoteConnectTimeout bounds connecting to a remote browser (a Playwright
// server launches its browser during the connect).
var RemoteConnectTimeout = 60 * time.Second

// connectRemote starts the driver here and connects it to a remote browser.
func connectRemote(o Options) (*Browser, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	endpoint := o.WSEndpoint
	if endpoint == "" {
		endpoint = o.CDPURL
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("remote browser endpoint %q is not a URL", endpoint)
	}
	if !isLoopbackHost(u.Hostname()) {
		logf("the browser at %s must share this machine's loopback: mcpconform's servers and its loopback guard listen on 127.0.0.1 here", u.Host)
	}
	t0 := time.Now()
	paths, err := locateDriver(o.Paths, o.WSEndpoint != "")
	if err != nil {
		return nil, err
	}
	os.Setenv("PLAYWRIGHT_NODEJS_PATH", paths.Node)
	os.Setenv("PLAYWRIGHT_DRIVER_PATH", paths.DriverDir)
	run := &playwright.RunOptions{DriverDirectory: paths.DriverDir, SkipInstallBrowsers: true, Verbose: false, Stdout: os.Stderr, Stderr: os.Stderr}
	if !driverInstalled(paths.DriverDir) {
		logf("installing the Playwright driver %s into %s (from the npm registry)", DriverVersion, paths.DriverDir)
		if err := playwright.Install(run); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDriver, err)
		}
	}
	pw, err := playwright.Run(run)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDriver, err)
	}
	driverStart := time.Since(t0)
	hole, err := guard(o.AllowHosts)
	if err != nil {
		pw.Stop()
		return nil, err
	}
	timeout := playwright.Float(float64(RemoteConnectTimeout.Milliseconds()))
	t1 := time.Now()
	var b playwright.Browser
	if o.WSEndpoint != "" {
		// The server launches the browser for this connection from these
		// options. It honours executablePath, args and ignoreDefaultArgs
		// only when started with --unsafe; the per-context guard does not
		// depend on them. Without a named browser the server launches its
		// own Playwright build.
		lo := map[string]any{
			"headless":          !o.Headed,
			"args":              launchArgs(hole.Addr().String(), o.ExtraArg),
			"ignoreDefaultArgs": []string{"--disable-popup-blocking"},
		}
		if paths.Browser != "" {
			lo["executablePath"] = paths.Browser
		}
		hdr, _ := json.Marshal(lo)
		b, err = pw.Chromium.Connect(o.WSEndpoint, playwright.BrowserTypeConnectOptions{
			Headers: map[string]string{"x-playwright-launch-options": string(hdr)},
			Timeout: timeout,
		})
	} else {
		b, err = pw.Chromium.ConnectOverCDP(o.CDPURL, playwright.BrowserTypeConnectOverCDPOptions{Timeout: timeout})
	}
	if err != nil {
		hole.Close()
		pw.Stop()
		return nil, fmt.Errorf("connecting to the browser at %s: %w", redact(u), err)
	}
	br := &Browser{PW: pw, Browser: b, Paths: paths, blackhole: hole, gone: make(chan struct{}), Video: o.Video,
		DriverStart: driverStart, BrowserLaunch: time.Since(t1), Remote: redact(u)}
	br.watch()
	if blocked, err := br.popupsBlocked(); err != nil {
		logf("could not check the remote browser's popup blocking (%v): gesture-gated checks are unverified", err)
	} else if !blocked {
		br.PopupsUnblocked = true
		logf("the remote browser opens popups without a user gesture (--disable-popup-blocking; a Playwright server without --unsafe drops mcpconform's launch options): gesture-gated checks cannot be trusted")
	}
	return br, nil
}

// popupsBlocked reports whether the browser blocks a popup opened without
// a user gesture, by trying one in a throwaway guarded context through a
// gesture-free evaluate (Playwright's own evaluate would grant a gesture).
func (b *Browser) popupsBlocked() (bool, error) {
	c, p, err := b.NewPage()
	if err != nil {
		return false, err
	}
	defer c.Close()
	ev := bridge.NewEvaluator(c, p.MainFrame(), "true")
	defer ev.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var opened bool
	if err := ev.EvalInto(ctx, "window.open('about:blank') !== null", &opened); err != nil {
		return false, err
	}
	return !opened, nil
}

// locateDriver finds what the driver needs (Node and the driver directory)
// without requiring a local browser. The browser path, when one is named
// (--browser, MCPCONFORM_BROWSER), is passed on unchecked: it is a path on
// the Playwright server's machine, which asks that server to launch it.
func locateDriver(p Paths, wantBrowser bool) (Paths, error) {
	var err error
	if p.Node, err = findNode(p.Node); err != nil {
		return p, err
	}
	if !wantBrowser {
		p.Browser = ""
	} else if p.Browser == "" {
		p.Browser = os.Getenv("MCPCONFORM_BROWSER")
	}
	p.DriverDir = driverDir(p.DriverDir)
	return p, nil
}

// redact drops credentials and the query (tokens) from an endpoint shown in
// logs and reports.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		c.RawQuery = "…"
	}
	c.Fragment = ""
	return c.String()
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
