package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mxschmitt/playwright-go"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts/chatgpt"
	"github.com/mcpconform/mcpconform/hosts/claude"
	"github.com/mcpconform/mcpconform/hosts/webchat"
)

// hostedProfiles are the hosted products `login` knows, by --host name.
var hostedProfiles = map[string]func() webchat.Profile{
	"chatgpt": chatgpt.Profile,
	"claude":  claude.Profile,
}

func hostedNames() []string {
	var n []string
	for k := range hostedProfiles {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func loginCommand() *cli.Command {
	return &cli.Command{
		Name:  "login",
		Usage: "log in to a hosted product (" + strings.Join(hostedNames(), ", ") + ") in a browser window and save the session for `run`",
		Description: "Opens a browser window at the product's login page. Log in, check that a new chat opens, then close the window:\n" +
			"the session (a Playwright storage state) is written to --out with mode 0600. `run --host HOST` reads it\n" +
			"from MCPCONFORM_<HOST>_STORAGE_STATE. The file is a login session: keep it out of the repository; in CI\n" +
			"store it as a secret (docs/hosted.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "product to log in to (" + strings.Join(hostedNames(), ", ") + ")", Required: true},
			&cli.StringFlag{Name: "out", Usage: "write the storage state to `FILE` (default: $MCPCONFORM_<HOST>_STORAGE_STATE, else <user config dir>/mcpconform/<host>.storage-state.json)"},
			&cli.StringFlag{Name: "browser", Usage: "Chromium binary `PATH` [MCPCONFORM_BROWSER]"},
			&cli.StringFlag{Name: "node", Usage: "Node.js >= 20 binary `PATH` for the Playwright driver [MCPCONFORM_NODE]"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return usage(fmt.Errorf("login takes no arguments, got %q", c.Args().Slice()))
			}
			var bc browserConfig
			if err := load(c, &bc); err != nil {
				return usage(err)
			}
			o := loginOptions{
				host:   c.String("host"),
				out:    c.String("out"),
				paths:  bc.paths(),
				getenv: os.Getenv,
				stdout: c.App.Writer,
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := login(ctx, o)
			var ue *loginUsageError
			switch {
			case err == nil:
				return nil
			case errors.As(err, &ue):
				return usage(ue.err)
			case ctx.Err() != nil:
				return &exitError{code: ExitSIGINT, err: errors.New("interrupted: no session was saved")}
			default:
				return &exitError{code: ExitInfra, err: err}
			}
		},
	}
}

// loginOptions are the inputs of login; tests set the seams.
type loginOptions struct {
	host   string
	out    string
	paths  bridge.Paths
	getenv func(string) string
	stdout io.Writer
	// args are extra Chromium arguments (tests put a refusing proxy here,
	// so that the login browser reaches loopback only).
	args []string
	// onPage is called with the login page once it is open (tests play
	// the user: log in, then close the window).
	onPage func(playwright.Page)
	// snapshotEvery is how often the session is captured while the window
	// is open (default 1s).
	snapshotEvery time.Duration
}

type loginUsageError struct{ err error }

func (e *loginUsageError) Error() string { return e.err.Error() }

// login opens a headed browser at the product's login page and, when the
// user has closed every window, saves the browser context's storage state
// to the output file with mode 0600.
func login(ctx context.Context, o loginOptions) error {
	mk, ok := hostedProfiles[o.host]
	if !ok {
		return &loginUsageError{fmt.Errorf("unknown host %q for login: choose one of %s", o.host, strings.Join(hostedNames(), ", "))}
	}
	if o.stdout == nil {
		o.stdout = io.Discard
	}
	if o.snapshotEvery <= 0 {
		o.snapshotEvery = time.Second
	}
	p, err := webchat.LoadProfile(mk(), o.getenv)
	if err != nil {
		return &loginUsageError{err}
	}
	if p.LoginURL == "" || p.LoginURL == webchat.None {
		return &loginUsageError{fmt.Errorf("%s is empty: no login page to open", p.Var("LoginURL"))}
	}
	out, err := loginOutput(o.out, p)
	if err != nil {
		return err
	}
	if runtime.GOOS == "linux" && o.getenv("DISPLAY") == "" && o.getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("login opens a browser window for you to log in: DISPLAY is unset. Run it on a machine with a desktop (not in CI), then copy the file to CI as a secret (docs/hosted.md)")
	}

	// bridge.Launch starts the Playwright driver (installing it on first
	// use) and a Chromium whose traffic is held to loopback. Logging in
	// needs the product's real site, so the window the user sees is a
	// second Chromium from the same driver without that guard; it is only
	// ever driven by the user.
	br, err := bridge.Launch(bridge.Options{Paths: o.paths})
	if err != nil {
		return err
	}
	defer br.Close()
	args := append([]string{
		"--no-first-run", "--disable-sync", "--disable-component-update", "--disable-background-networking",
		// Some identity providers refuse browsers that announce automation.
		"--disable-blink-features=AutomationControlled",
		"--window-size=1280,900",
	}, o.args...)
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

	fmt.Fprintf(o.stdout, "Log in to %s in the browser window (%s).\nWhen a new chat opens, close the window: the session is saved to %s.\n", p.DisplayName, p.LoginURL, out)
	if _, err := page.Goto(p.LoginURL); err != nil {
		return fmt.Errorf("opening %s (%s): %w", p.LoginURL, p.Source("LoginURL"), err)
	}
	if o.onPage != nil {
		go o.onPage(page)
	}
	tick := time.NewTicker(o.snapshotEvery)
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
	fmt.Fprintf(o.stdout, "Saved the session (%d cookies, %d for %s) to %s (mode 0600).\n", len(st.Cookies), n, p.DisplayName, out)
	if n == 0 {
		fmt.Fprintf(o.stdout, "warning: no cookie of %s was saved: did the login finish before the window closed?\n", p.DisplayName)
	}
	fmt.Fprintf(o.stdout, "Use it with:\n  export %s=%s\n  mcpconform run --host %s\n", p.Var("StorageState"), out, p.Product)
	return nil
}

// loginOutput picks the output path: --out, then the variable run reads,
// then a private file in the user's config directory.
func loginOutput(flag string, p *webchat.Profile) (string, error) {
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
func productCookies(st *playwright.StorageState, p *webchat.Profile) int {
	hosts := append([]string(nil), p.AllowedHosts...)
	if u, err := url.Parse(p.LoginURL); err == nil {
		hosts = append(hosts, u.Hostname())
	}
	n := 0
	for _, c := range st.Cookies {
		d := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		for _, h := range hosts {
			if d == h || strings.HasSuffix(d, "."+h) {
				n++
				break
			}
		}
	}
	return n
}
