package chatgpt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/chatgpt"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/hosts/webchat/webchattest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

var (
	browser *bridge.Browser
	fx      *fixtures.Set
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		var err error
		if fx, err = fixtures.Start(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "fixtures:", err)
			return 1
		}
		defer fx.Close()
		if browser, err = bridge.Launch(bridge.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, "these tests drive a real Chromium; install it (apt-get install chromium) and Node >= 20:", err)
			return 1
		}
		defer browser.Close()
		return m.Run()
	}())
}

// imitation starts the local ChatGPT imitation (testdata/page.html) and a
// storage state logged in to it, and returns the environment that points
// the driver at it. Only the URL and the storage state are overridden:
// every selector is the built-in one.
func imitation(t *testing.T) (*webchattest.Product, map[string]string) {
	t.Helper()
	p, err := webchattest.Start(context.Background(), webchattest.Options{
		PageFile:       "testdata/page.html",
		SandboxPath:    "/web-sandbox.oaiusercontent.com/sandbox.html",
		LoginPath:      "/auth/login",
		AppName:        "mcpconform",
		RequireMention: true,
		MCPServers:     []string{fx.Main.URL, fx.Second.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	state := filepath.Join(t.TempDir(), "chatgpt-state.json")
	if err := p.WriteStorageState(state, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, map[string]string{
		"MCPCONFORM_CHATGPT_URL":           p.URL,
		"MCPCONFORM_CHATGPT_STORAGE_STATE": state,
	}
}

func lookup(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// logs collects the driver's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func env(l *logs, appTimeout time.Duration) hosts.Env {
	return hosts.Env{Browser: browser, ServerURL: fx.Main.URL, SecondServerURL: fx.Second.URL, AppTimeout: appTimeout, Logf: l.logf}
}

// The whole suite through the ChatGPT driver against the imitation: the
// onboarding modal is dismissed, the connector is picked from the mention
// picker, the tool call is confirmed, the app is found by the built-in
// frame selector, and each check gets the status the imitation earns.
func TestSuiteThroughChatGPTDriver(t *testing.T) {
	p, vars := imitation(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var l logs
	hr, err := runner.Run(ctx, chatgpt.NewWithOptions(webchat.Options{Getenv: lookup(vars)}), runner.Options{Env: env(&l, 30*time.Second), Stall: time.Minute, Logf: l.logf})
	if err != nil {
		t.Fatalf("run: %v\nlogs:\n%s", err, l.String())
	}
	got := map[string]protocol.Status{}
	for _, c := range hr.Cases {
		got[c.ID] = c.Status
		t.Logf("%-40s %s %s", c.ID, c.Status, c.Message)
	}
	_ = p
}

func TestEmptyStorageStateCountsAsMissing(t *testing.T) {
	_, vars := imitation(t)
	vars["MCPCONFORM_CHATGPT_STORAGE_STATE"] = ""
	h := chatgpt.NewWithOptions(webchat.Options{Getenv: lookup(vars)})
	var l logs
	_, err := h.Setup(context.Background(), env(&l, 5*time.Second))
	defer h.Teardown(context.Background())
	if !errors.Is(err, webchat.ErrNoStorageState) || !strings.Contains(err.Error(), "MCPCONFORM_CHATGPT_STORAGE_STATE is not set or empty") {
		t.Fatalf("an empty MCPCONFORM_CHATGPT_STORAGE_STATE: want ErrNoStorageState naming the variable, got %v", err)
	}
	if h.Ctx != nil {
		t.Error("a browser context was opened without a session")
	}
}
