package browser

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mxschmitt/playwright-go"
)

// hideSystemBrowsers makes findBrowser see no system browser for the test.
func hideSystemBrowsers(t *testing.T) {
	t.Helper()
	saved := systemBrowsers
	systemBrowsers = []string{filepath.Join(t.TempDir(), "no-such-chromium")}
	t.Cleanup(func() { systemBrowsers = saved })
	t.Setenv("MCPCONFORM_BROWSER", "")
}

// fakeChromium puts a Playwright-style Chromium named name into dir:
// name/<layout>, with the INSTALLATION_COMPLETE marker if
// complete. It returns the binary.
func fakeChromium(t *testing.T, dir, name string, complete bool) string {
	t.Helper()
	return fakeChromiumAt(t, dir, name, chromiumExecutables[runtime.GOOS][0], complete)
}

func fakeChromiumAt(t *testing.T, dir, name, rel string, complete bool) string {
	t.Helper()
	bin := filepath.Join(dir, name, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if complete {
		if err := os.WriteFile(filepath.Join(dir, name, "INSTALLATION_COMPLETE"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// requireBrowser is this machine's Chromium (as Locate finds it, so
// MCPCONFORM_BROWSER=/nonexistent hides it). Without one the test skips,
// or fails with MCPCONFORM_REQUIRE_BROWSER=1: the rule of
// internal/e2etest, which this package's own tests cannot import.
func requireBrowser(t *testing.T) string {
	t.Helper()
	skipShort(t)
	p, err := Locate(Paths{})
	if err == nil {
		return p.Browser
	}
	if !errors.Is(err, ErrNoBrowser) && !errors.Is(err, ErrNoNode) {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("no Chromium: this test drives a real browser: %v", err)
	if os.Getenv("MCPCONFORM_REQUIRE_BROWSER") == "1" {
		t.Fatalf("%s (MCPCONFORM_REQUIRE_BROWSER=1: a browser test must not skip)", msg)
	}
	t.Skip(msg)
	return ""
}

// The order: explicit → system → Playwright's installed Chromium (the
// newest complete one, not the headless shell); nothing found is "" for
// locate and ErrNoBrowser, naming what to install, for Locate.
func TestFindBrowserOrder(t *testing.T) {
	if _, ok := chromiumExecutables[runtime.GOOS]; !ok {
		t.Skip("no Playwright Chromium layout for " + runtime.GOOS)
	}
	hideSystemBrowsers(t)
	pwDir := t.TempDir()
	t.Setenv("PLAYWRIGHT_BROWSERS_PATH", pwDir)
	drv := t.TempDir()

	if got, err := findBrowser("", drv); err != nil || got != "" {
		t.Fatalf("empty cache: %q, %v", got, err)
	}
	fakeChromium(t, pwDir, "chromium-1200", true)
	want := fakeChromium(t, pwDir, "chromium-1248", true)
	fakeChromium(t, pwDir, "chromium-1300", false) // interrupted download
	fakeChromium(t, pwDir, "chromium-headless-shell-1400", true)
	fakeChromium(t, pwDir, "chromium-tip-of-tree-1500", true)
	if got, err := findBrowser("", drv); err != nil || got != want {
		t.Fatalf("Playwright's cache: %q, %v; want %q", got, err, want)
	}

	// A system browser comes first.
	sys := filepath.Join(t.TempDir(), "chromium")
	os.WriteFile(sys, []byte("#!/bin/sh\n"), 0o755)
	systemBrowsers = append(systemBrowsers, sys)
	if got, _ := findBrowser("", drv); got != sys {
		t.Fatalf("system browser: got %q, want %q", got, sys)
	}
	// The explicit one before everything; a missing explicit one is an
	// error, never a fallback.
	exp := filepath.Join(t.TempDir(), "my-chrome")
	os.WriteFile(exp, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("MCPCONFORM_BROWSER", exp)
	if got, _ := findBrowser("", drv); got != exp {
		t.Fatalf("MCPCONFORM_BROWSER: got %q, want %q", got, exp)
	}
	if got, _ := findBrowser(sys, drv); got != sys {
		t.Fatalf("--browser before MCPCONFORM_BROWSER: got %q", got)
	}
	if _, err := findBrowser("/nonexistent/chromium", drv); !errors.Is(err, ErrNoBrowser) || !strings.Contains(err.Error(), "/nonexistent/chromium does not exist") {
		t.Fatalf("missing explicit browser: %v", err)
	}
}

func TestPlaywrightBrowsersDir(t *testing.T) {
	t.Setenv("PLAYWRIGHT_BROWSERS_PATH", "0")
	if got, want := playwrightBrowsersDir("/drv"), filepath.Join("/drv", "package", ".local-browsers"); got != want {
		t.Errorf("PLAYWRIGHT_BROWSERS_PATH=0: %q, want %q", got, want)
	}
	t.Setenv("PLAYWRIGHT_BROWSERS_PATH", "/pw")
	if got := playwrightBrowsersDir("/drv"); got != "/pw" {
		t.Errorf("PLAYWRIGHT_BROWSERS_PATH=/pw: %q", got)
	}
	if runtime.GOOS == "linux" {
		t.Setenv("PLAYWRIGHT_BROWSERS_PATH", "")
		t.Setenv("XDG_CACHE_HOME", "/xdg")
		if got := playwrightBrowsersDir("/drv"); got != "/xdg/ms-playwright" {
			t.Errorf("XDG_CACHE_HOME=/xdg: %q", got)
		}
	}
}

// tripwire is a loopback HTTP proxy that counts every connection made to
// it and answers none: with HTTP(S)_PROXY pointing at it, any request to a
// host other than loopback ends here instead of leaving the machine.
type tripwire struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []string
}

func newTripwire(t *testing.T) *tripwire {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tw := &tripwire{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			tw.mu.Lock()
			tw.conns = append(tw.conns, strings.TrimSpace(line))
			tw.mu.Unlock()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return tw
}

func (tw *tripwire) seen() []string {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return append([]string(nil), tw.conns...)
}

// offlineDownload prepares Launch to find no browser and to download
// Playwright's Chromium from a loopback server answering status, into a
// temporary browsers directory, with every other destination caught by a
// tripwire proxy. It returns the server's request paths and the tripwire.
func offlineDownload(t *testing.T, status int) (paths func() []string, tw *tripwire, browsersDir string) {
	t.Helper()
	skipShort(t)
	hideSystemBrowsers(t)
	p, err := locate(Paths{})
	if errors.Is(err, ErrNoNode) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The driver itself comes from the npm registry on first use; fetch it
	// now, before the tripwire catches everything but loopback.
	if !driverInstalled(p.DriverDir) {
		t.Setenv("PLAYWRIGHT_NODEJS_PATH", p.Node)
		if err := playwright.Install(&playwright.RunOptions{DriverDirectory: p.DriverDir, SkipInstallBrowsers: true, Stdout: os.Stderr, Stderr: os.Stderr}); err != nil {
			t.Skipf("the Playwright driver could not be installed: %v", err)
		}
	}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
		http.Error(w, http.StatusText(status), status)
	}))
	t.Cleanup(srv.Close)
	tw = newTripwire(t)
	browsersDir = t.TempDir()
	for k, v := range map[string]string{
		"PLAYWRIGHT_BROWSERS_PATH":               browsersDir,
		"PLAYWRIGHT_DOWNLOAD_HOST":               srv.URL,
		"PLAYWRIGHT_CHROMIUM_DOWNLOAD_HOST":      "",
		"PLAYWRIGHT_DOWNLOAD_CONNECTION_TIMEOUT": "5000",
		"HTTPS_PROXY":                            "http://" + tw.ln.Addr().String(),
		"HTTP_PROXY":                             "http://" + tw.ln.Addr().String(),
		"https_proxy":                            "http://" + tw.ln.Addr().String(),
		"http_proxy":                             "http://" + tw.ln.Addr().String(),
		"NO_PROXY":                               "127.0.0.1,localhost",
		"no_proxy":                               "127.0.0.1,localhost",
		EnvNoBrowserDownload:                     "",
		// Launch sets these process-wide; restore them after the test.
		"PLAYWRIGHT_NODEJS_PATH": os.Getenv("PLAYWRIGHT_NODEJS_PATH"),
		"PLAYWRIGHT_DRIVER_PATH": os.Getenv("PLAYWRIGHT_DRIVER_PATH"),
		"XDG_CONFIG_HOME":        os.Getenv("XDG_CONFIG_HOME"),
	} {
		t.Setenv(k, v)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}, tw, browsersDir
}

// skipShort skips, under -short, a test that starts the Playwright
// driver (this package's tests cannot use e2etest, which imports it).
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test starts the Playwright driver")
	}
}
