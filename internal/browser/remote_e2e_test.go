package browser_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/proctree"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// driverPaths finds Node, the local Chromium and the installed driver
// (installing it through Launch when a fresh machine has none yet).
func driverPaths(t *testing.T) browser.Paths {
	t.Helper()
	e2etest.Require(t)
	p, err := browser.Locate(browser.Paths{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.DriverDir, "package", "cli.js")); err != nil {
		launch(t, browser.Options{}).Close()
	}
	return p
}

// started is a process tree the test started; stop ends it and fails the
// test if anything of it outlives the grace period.
type started struct{ cmd *exec.Cmd }

func (s *started) stop(t *testing.T) {
	t.Helper()
	pid := s.cmd.Process.Pid
	tree, _ := proctree.Take(pid)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	// The process was started in a group of its own: end the group. While
	// `playwright run-server` still has a browser it catches SIGTERM to
	// close it and stays up (Playwright's handleSIGTERM), so ask again each
	// second until it is gone.
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for stopping := true; stopping; {
		syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-done:
			stopping = false
		case <-tick.C:
		case <-deadline:
			syscall.Kill(-pid, syscall.SIGKILL)
			<-done
			t.Errorf("%s did not exit within 15s of SIGTERM", s.cmd.Path)
			stopping = false
		}
	}
	// What it started (a browser runs in a session of its own) must be
	// gone too; wait a little for it, then end stragglers by pid.
	until := time.Now().Add(10 * time.Second)
	for _, p := range tree.Procs[1:] {
		for alive(p.PID) && time.Now().Before(until) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(p.PID) {
			syscall.Kill(p.PID, syscall.SIGKILL)
			t.Errorf("process %d (%s) outlived %s", p.PID, p.Comm, s.cmd.Path)
		}
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	p, err := (&proctree.FS{Root: "/proc"}).Stat(pid)
	return err == nil && p.State != 'Z'
}

// playwrightServer starts `playwright run-server` from the installed driver
// on loopback and returns its ws:// endpoint. env is added to its
// environment.
func playwrightServer(t *testing.T, p browser.Paths, unsafe bool, env ...string) string {
	t.Helper()
	args := []string{filepath.Join(p.DriverDir, "package", "cli.js"), "run-server", "--host", "127.0.0.1", "--port", "0"}
	if unsafe {
		args = append(args, "--unsafe")
	}
	cmd := exec.Command(p.Node, args...)
	// Debian's Chromium writes its crash database under XDG_CONFIG_HOME.
	cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir()), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd}
	t.Cleanup(func() { s.stop(t) })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "Listening on ") {
				lines <- strings.TrimPrefix(l, "Listening on ")
			}
		}
	}()
	return testwait.Recv(t, lines, 60*time.Second, "the Playwright server did not say where it listens within 60s")
}

// fakeBrowsers is a PLAYWRIGHT_BROWSERS_PATH whose Chromium builds are the
// system Chromium, so that a server which ignores the client's
// executablePath (no --unsafe) still launches something on this machine.
func fakeBrowsers(t *testing.T, p browser.Paths) string {
	t.Helper()
	var doc struct {
		Browsers []struct{ Name, Revision string }
	}
	b, err := os.ReadFile(filepath.Join(p.DriverDir, "package", "browsers.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonUnmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, br := range doc.Browsers {
		var rel []string
		switch br.Name {
		case "chromium":
			rel = []string{"chromium-" + br.Revision, "chrome-linux64", "chrome"}
		case "chromium-headless-shell":
			rel = []string{"chromium_headless_shell-" + br.Revision, "chrome-headless-shell-linux64", "chrome-headless-shell"}
		default:
			continue
		}
		path := filepath.Join(append([]string{dir}, rel...)...)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p.Browser, path); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, rel[0], "INSTALLATION_COMPLETE"), nil, 0o644)
	}
	return dir
}

// newPage opens a page in a new context of br; close the context.
func newPage(t *testing.T, br *browser.Browser) (playwright.BrowserContext, playwright.Page) {
	t.Helper()
	c, pg, err := br.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return c, pg
}

// commandLine is the browser's command line, from chrome://version.
func commandLine(t *testing.T, br *browser.Browser) []string {
	t.Helper()
	c, pg := newPage(t, br)
	defer c.Close()
	if _, err := pg.Goto("chrome://version"); err != nil {
		t.Fatal(err)
	}
	txt, err := pg.Locator("#command_line").TextContent()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(txt)
}

// checkGuard shows a context of br reaches loopback and nothing else.
func checkGuard(t *testing.T, br *browser.Browser) {
	t.Helper()
	ln := serveLoopback(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("loopback ok")) })
	c, pg := newPage(t, br)
	defer c.Close()
	if _, err := pg.Goto("http://" + ln.Addr().String() + "/"); err != nil {
		t.Fatalf("loopback page: %v", err)
	}
	if txt, _ := pg.Locator("body").TextContent(); txt != "loopback ok" {
		t.Fatalf("loopback body %q", txt)
	}
	// .invalid never resolves, so even a broken guard sends nothing off
	// the machine; the answer must come from the guard.
	resp, err := pg.Goto("http://mcpconform-guard-test.invalid/path")
	if err != nil {
		t.Fatalf("navigation: %v", err)
	}
	body, _ := pg.Locator("body").TextContent()
	if resp.Status() != 403 || !strings.Contains(body, "mcpconform blocked a request to mcpconform-guard-test.invalid") {
		t.Fatalf("a non-loopback navigation was not answered by the guard: %d %q", resp.Status(), body)
	}
	if _, err := pg.Goto("https://mcpconform-guard-test.invalid/"); err == nil || !strings.Contains(err.Error(), "ERR_TUNNEL_CONNECTION_FAILED") {
		t.Fatalf("https to a non-loopback host: want ERR_TUNNEL_CONNECTION_FAILED, got %v", err)
	}
}

// A stock Playwright server (no --unsafe) drops the client's launch args,
// executablePath and ignoreDefaultArgs. The loopback guard still holds,
// because it travels as a per-context proxy, and the popup blocking that
// Playwright's default args disable is reported.
func TestBrowserWSStockServerKeepsTheGuard(t *testing.T) {
	p := driverPaths(t)
	ws := playwrightServer(t, p, false, "PLAYWRIGHT_BROWSERS_PATH="+fakeBrowsers(t, p))
	var logs []string
	var mu sync.Mutex
	br, err := browser.Launch(browser.Options{WSEndpoint: ws, Logf: func(f string, a ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(f, a...))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	if br.Remote != ws || br.DriverStart <= 0 || br.BrowserLaunch <= 0 {
		t.Errorf("remote %q, driver start %v, launch %v", br.Remote, br.DriverStart, br.BrowserLaunch)
	}
	args := commandLine(t, br)
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--proxy-server") }) {
		t.Fatalf("the stock server applied the client's launch args, so this test proves nothing about the per-context guard: %q", args)
	}
	if !br.PopupsUnblocked || !strings.Contains(strings.Join(logs, "\n"), "--disable-popup-blocking") {
		t.Errorf("popup blocking disabled by the server was not reported (PopupsUnblocked %v, log %q)", br.PopupsUnblocked, logs)
	}
	checkGuard(t, br)
}

// The reference host's suite runs through --browser-ws against a Playwright
// server started here on loopback, and passes: in CI the areas where a
// remote browser could differ (the View's frames and their sandbox, CSP,
// popups, downloads, the lifecycle of probe Views), as the CDP test does;
// the whole catalogue with MCPCONFORM_E2E_EXTENDED=1.
func TestReferenceSuiteThroughBrowserWS(t *testing.T) {
	p := driverPaths(t)
	ws := playwrightServer(t, p, true)
	// The server runs on this machine: ask it for the system Chromium.
	br, err := browser.Launch(browser.Options{WSEndpoint: ws, Paths: browser.Paths{Browser: p.Browser}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	// With --unsafe the server launched the system Chromium with the same
	// flags a local launch has, popup blocking included.
	args := commandLine(t, br)
	if br.PopupsUnblocked || slices.Contains(args, "--disable-popup-blocking") || !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--proxy-server=http://127.0.0.1:") }) {
		t.Errorf("the server did not launch with mcpconform's flags: %q", args)
	}
	if len(args) == 0 || !strings.Contains(args[0], filepath.Base(p.Browser)) {
		t.Errorf("the server launched %q, not the system Chromium %s", args, p.Browser)
	}
	checkGuard(t, br)
	var globs []string
	if !e2etest.IsExtended() {
		globs = []string{"lifecycle/*", "security/*", "csp/*", "links/*", "downloads/*"}
	}
	runReference(t, br, globs)
}

// runReference runs the selected checks (all when globs is empty) against
// the reference host in br and requires every one to pass.
func runReference(t *testing.T, br *browser.Browser, globs []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fx, err := fixtures.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	hr, err := runner.Run(ctx, reference.New(), runner.Options{
		Env:       hosts.Env{Browser: br, ServerURL: fx.Main.URL, SecondServerURL: fx.Second.URL, AppTimeout: time.Minute, Logf: t.Logf},
		Selection: runner.Selection{Globs: globs},
		Stall:     time.Minute,
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(hr.Cases) < 5 {
		t.Fatalf("only %d checks ran", len(hr.Cases))
	}
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusPass {
			t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
		}
	}
}

// --cdp: a Chromium this test starts with remote debugging on loopback.
// mcpconform attaches, its contexts keep the guard, a part of the suite
// passes through it, and closing detaches without ending a browser that
// mcpconform did not start.
func TestReferenceSuiteThroughCDP(t *testing.T) {
	p := driverPaths(t)
	profile := t.TempDir()
	cmd := exec.Command(p.Browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir="+profile, "about:blank")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd}
	defer s.stop(t)
	// Chromium writes the port it chose into DevToolsActivePort.
	var port int
	deadline := time.Now().Add(30 * time.Second)
	for port == 0 {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			port, _ = strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		}
		if port == 0 {
			if time.Now().After(deadline) {
				t.Fatal("Chromium wrote no DevToolsActivePort within 30s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	br, err := browser.Launch(browser.Options{CDPURL: endpoint, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if br.Remote != endpoint || br.PopupsUnblocked {
		t.Errorf("remote %q, popups unblocked %v", br.Remote, br.PopupsUnblocked)
	}
	checkGuard(t, br)
	runReference(t, br, []string{"lifecycle/*", "security/*", "csp/*", "links/*"})
	if err := br.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !alive(cmd.Process.Pid) {
		t.Error("closing the CDP connection ended a browser mcpconform did not start")
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
