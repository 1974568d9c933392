// Package login opens a browser window at a hosted product's login page
// and, once the user has logged in and closed it, saves the session (a
// Playwright storage state) for runs against that product.
package login

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/browser"
)

// Options are the inputs of Run; tests set the seams.
type Options struct {
	// Login is what the product's host said about logging in to it
	// (hosts.LoginProfiler, with its MCPCONFORM_<HOST>_* overrides read).
	Login hosts.Login
	// Out is the output file ("" picks one: see Run).
	Out    string
	Paths  browser.Paths
	Getenv func(string) string
	Stdout io.Writer
	// Args are extra Chromium arguments (tests put a refusing proxy here,
	// so that the login browser reaches loopback only).
	Args []string
	// OnPage is called with the login page once it is open (tests play
	// the user: log in, then close the window).
	OnPage func(playwright.Page)
	// SnapshotEvery is how often the session is captured while the window
	// is open (default 1s).
	SnapshotEvery time.Duration
}

// UsageError is a login that cannot start for the user's input.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Host logs in to the registered host named host, which must be a
// hosts.LoginProfiler: its login profile (with the MCPCONFORM_<HOST>_*
// overrides read through o.Getenv) becomes o.Login, then Run.
func Host(ctx context.Context, host string, o Options) error {
	h, _ := hosts.New(hosts.Params{Name: host, Environ: getenvEnviron(o.Getenv)})
	lp, ok := h.(hosts.LoginProfiler)
	if !ok {
		return &UsageError{Err: fmt.Errorf("unknown host %q for login: choose one of %s", host, strings.Join(hosts.Logins(), ", "))}
	}
	p, err := lp.LoginProfile(o.Getenv)
	if err != nil {
		return &UsageError{Err: err}
	}
	o.Login = p
	return Run(ctx, o)
}

// Run opens a headed browser at the product's login page and, when the
// user has closed every window, saves the browser context's storage state
// to the output file with mode 0600.
func Run(ctx context.Context, o Options) error {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.SnapshotEvery <= 0 {
		o.SnapshotEvery = time.Second
	}
	p := &o.Login
	out, err := loginOutput(o.Out, p)
	if err != nil {
		return err
	}
	if runtime.GOOS == "linux" && o.Getenv("DISPLAY") == "" && o.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("login opens a browser window for you to log in: DISPLAY is unset. Run it on a machine with a desktop (not in CI), then copy the file to CI as a secret (docs/hosted.md)")
	}

	// browser.Launch starts the Playwright driver (installing it on first
	// use) and a Chromium whose traffic is held to loopback. Logging in
	// needs the product's real site, so the window the user sees is a
	// second Chromium from the same driver without that guard; it is only
	// ever driven by the user.
	br, err := browser.Launch(browser.Options{Paths: o.Paths})
	if err != nil {
		return err
	}
	defer br.Close()
	args := append([]string{
		"--no-first-run", "--disable-sync", "--disable-component-update", "--disable-background-networking",
		// Some identity providers refuse browsers that announce automation.
		"--disable-blink-features=AutomationControlled",
		"--window-size=1280,900",
	}, o.Args...)
	b, err := br.PW.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath:    playwright.String(br.Paths.Browser),
		Headless:          playwright.Bool(false),
		Args:              args,
		IgnoreDefaultArgs: []string{"--enable-automation"},
	})
	if err != nil {
		return fmt.Errorf("opening the login window: %w", err)
	}
	defer b.Close()
	bctx, err := b.NewContext(playwright.BrowserNewContextOptions{NoViewport: playwright.Bool(true)})
	if err != nil {
		return err
	}
	page, err := bctx.NewPage()
	if err != nil {
		return err
	}

	var (
		mu   sync.Mutex
		last *playwright.StorageState
		open = 1
	)
	done := make(chan struct{})
	var once sync.Once
	finish := func() { once.Do(func() { close(done) }) }
	snapshot := func() {
		if st, err := bctx.StorageState(); err == nil {
			mu.Lock()
			last = st
			mu.Unlock()
		}
	}
	onClose := func(playwright.Page) {
		mu.Lock()
		open--
		n := open
		mu.Unlock()
		if n <= 0 {
			finish()
		}
	}
	page.OnClose(onClose)
	bctx.OnPage(func(p playwright.Page) {
		mu.Lock()
		open++
		mu.Unlock()
		p.OnClose(onClose)
	})
	b.OnDisconnected(func(playwright.Browser) { finish() })

	fmt.Fprintf(o.Stdout, "Log in to %s in the browser window (%s).\nWhen a new chat opens, close the window: the session is saved to %s.\n", p.DisplayName, p.URL, out)
	if _, err := page.Goto(p.URL); err != nil {
		return fmt.Errorf("opening %s (%s): %w", p.URL, p.URLSource, err)
	}
	if o.OnPage != nil {
		go o.OnPage(page)
	}
	tick := time.NewTicker(o.SnapshotEvery)
	defer tick.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
			break wait
		case <-tick.C:
			snapshot()
		}
	}
	snapshot() // the context outlives its pages; after a crash, the last tick's copy is used
	mu.Lock()
	st := last
	mu.Unlock()
	if st == nil {
		return errors.New("the browser closed before the session could be read; nothing was saved")
	}
	if err := webchat.SaveStorageState(out, st); err != nil {
		return fmt.Errorf("saving the storage state: %w", err)
	}
	n := productCookies(st, p)
	fmt.Fprintf(o.Stdout, "Saved the session (%d cookies, %d for %s) to %s (mode 0600).\n", len(st.Cookies), n, p.DisplayName, out)
	if n == 0 {
		fmt.Fprintf(o.Stdout, "warning: no cookie of %s was saved: did the login finish before the window closed?\n", p.DisplayName)
	}
	fmt.Fprintf(o.Stdout, "Use it with:\n  export %s=%s\n  mcpconform run --host %s\n", p.StorageStateVar, out, p.Product)
	return nil
}

// loginOutput picks the output path: --out, then the variable run reads,
// then a private file in the user's config directory.
func loginOutput(flag string, p *hosts.Login) (string, error) {
	out := flag
	if out == "" {
		out = p.StorageState
	}
	if out == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no --out and no user config directory: %w", err)
		}
		out = filepath.Join(dir, "mcpconform", p.Product+".storage-state.json")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", err
	}
	return abs, nil
}

// productCookies counts the cookies that belong to the product's sites.
func productCookies(st *playwright.StorageState, p *hosts.Login) int {
	domains := append([]string(nil), p.Domains...)
	if u, err := url.Parse(p.URL); err == nil {
		domains = append(domains, u.Hostname())
	}
	n := 0
	for _, c := range st.Cookies {
		d := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		for _, h := range domains {
			if d == h || strings.HasSuffix(d, "."+h) {
				n++
				break
			}
		}
	}
	return n
}

// getenvEnviron is a getenv function as a hosts.Environ (nil: none).
type getenvEnviron func(string) string

func (g getenvEnviron) Lookup(key string) (string, bool) {
	if g == nil {
		return "", false
	}
	v := g(key)
	return v, v != ""
}
