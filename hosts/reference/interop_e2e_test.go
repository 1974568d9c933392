package reference_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/npmcache"
)

// The official SDK example the interop test runs: an MCP server whose app
// is built with the ext-apps App class (its own PostMessageTransport, Zod
// schemas for every host message). CI installs it into .cache/interop with
//
//	npm install --prefix .cache/interop --no-save --no-audit --no-fund @modelcontextprotocol/server-basic-vanillajs@2.0.3
//
// elsewhere the test installs it on first use into the npm cache of
// internal/npmcache (~/.cache/mcpconform/npm/<name>@<version>), and skips,
// naming the package, where npm or the registry is missing (a failure with
// MCPCONFORM_REQUIRE_BROWSER=1 or CI=true).
const (
	interopPackage = "@modelcontextprotocol/server-basic-vanillajs"
	interopVersion = "2.0.3"
)

// interopDir is the install prefix that holds the package:
// MCPCONFORM_INTEROP_DIR or .cache/interop at the repository root where
// they hold the pinned version, else the npm cache.
func interopDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".cache", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	return npmcache.ForTest(t, interopPackage+"@"+interopVersion, os.Getenv("MCPCONFORM_INTEROP_DIR"), root)
}

// startInteropServer runs the package's Streamable HTTP server on a free
// loopback port and returns its MCP URL.
func startInteropServer(t *testing.T, ctx context.Context) string {
	t.Helper()
	pkg := filepath.Join(interopDir(t), "node_modules", filepath.FromSlash(interopPackage))
	entry := filepath.Join(pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("%s@%s is installed but its server is missing: %v", interopPackage, interopVersion, err)
	}
	node := os.Getenv("MCPCONFORM_NODE")
	if node == "" {
		var err error
		if node, err = exec.LookPath("node"); err != nil {
			t.Fatalf("node is needed to run %s: %v", interopPackage, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.CommandContext(ctx, node, entry)
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", interopPackage, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan struct{})
	var (
		mu   sync.Mutex
		said strings.Builder // the server's first lines, for a failure
	)
	go func() {
		sc := bufio.NewScanner(out)
		var once sync.Once
		for sc.Scan() {
			mu.Lock()
			if said.Len() < 4096 {
				said.WriteString(sc.Text() + "\n")
			}
			mu.Unlock()
			if strings.Contains(sc.Text(), "listening") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%s did not start listening within 30 s; it said:\n%s", interopPackage, said.String())
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestInteropOfficialSDKApp shows an app built with the official ext-apps
// App class in the reference host: the SDK's handshake completes (its Zod
// schemas accept our initialize result), tool input and result reach it,
// and a button in the app that calls the host works, as does its log.
func TestInteropOfficialSDKApp(t *testing.T) {
	e2e(t) // skips before the interop server is built when there is no browser
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := startInteropServer(t, ctx)
	page, _ := openHostWith(t, ctx, playwright.BrowserNewContextOptions{}, reference.ServerOptions{MCPServers: []string{url}}, "")
	if err := page.Locator(`[data-testid="composer"]`).Fill(`Please call the tool get-time with arguments {}`); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(`[data-testid="send"]`).Click(); err != nil {
		t.Fatal(err)
	}
	app := page.Locator(`iframe[data-testid="app-frame"]`).ContentFrame().Locator("iframe").ContentFrame()
	timeEl := app.Locator("#server-time")
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$`)
	// The app shows the time from the tool-result it received; it says
	// "Loading..." until then.
	first := waitText(t, timeEl, iso, "", 20*time.Second)
	rpcLog := page.Locator(`[data-testid="rpc-log"]`)
	for _, want := range []string{
		`"method":"ui/initialize"`,
		`"method":"ui/notifications/initialized"`,
		`"method":"ui/notifications/tool-input"`,
		`"method":"ui/notifications/tool-result"`,
	} {
		waitLog(t, rpcLog, want)
	}
	// A button in the app calls the server tool through the host.
	if err := app.Locator("#get-time-btn").Click(); err != nil {
		t.Fatal(err)
	}
	second := waitText(t, timeEl, iso, first, 10*time.Second)
	waitLog(t, rpcLog, `"method":"tools/call","params":{"name":"get-time"`)
	// sendLog: notifications/message, accepted (hostCapabilities.logging).
	if err := app.Locator("#send-log-btn").Click(); err != nil {
		t.Fatal(err)
	}
	waitLog(t, rpcLog, `app log [info]`)
	t.Logf("tool-result time %s; after the button, %s", first, second)
}

// waitText waits until the locator's text matches re and differs from not.
func waitText(t *testing.T, l playwright.Locator, re *regexp.Regexp, not string, timeout time.Duration) string {
	t.Helper()
	var last string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ms := 1000.0
		s, err := l.TextContent(playwright.LocatorTextContentOptions{Timeout: &ms})
		if err != nil {
			continue
		}
		last = strings.TrimSpace(s)
		if re.MatchString(last) && last != not {
			return last
		}
	}
	t.Fatalf("the app's text is %q after %s, want a match of %s other than %q", last, timeout, re, not)
	return ""
}

func waitLog(t *testing.T, rpcLog playwright.Locator, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		s, err := rpcLog.TextContent()
		if err == nil && strings.Contains(s, want) {
			return
		}
	}
	s, _ := rpcLog.TextContent()
	if len(s) > 3000 {
		s = s[len(s)-3000:]
	}
	t.Fatalf("the host's protocol log never showed %s; it ends with:\n%s", want, s)
}
