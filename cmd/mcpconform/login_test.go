package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"

	weblogin "github.com/mcpconform/mcpconform/internal/login"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// needDisplay gives the test an X display: the real one, or Xvfb. CI must
// have Xvfb; elsewhere the test skips without it.
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") != "" {
		return
	}
	x, err := browser.EnsureDisplay(context.Background(), t.Logf)
	if errors.Is(err, browser.ErrNoXvfb) && os.Getenv("CI") == "" {
		t.Skip("no display and no Xvfb (apt-get install xvfb)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
}

// refusingProxy stands in for the loopback guard in the login browser: the
// test browser reaches the imitation on loopback and nothing else.
func refusingProxy(t *testing.T) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "blocked by the test", http.StatusForbidden)
	}))
	t.Cleanup(s.Close)
	return "--proxy-server=" + s.URL
}

// The user logs in in the window and closes it: the session lands in the
// output file with mode 0600, loads as a storage state, and the command
// prints the variable to set, never the session itself.
func TestLoginSavesThePrivateSession(t *testing.T) {
	e2etest.Require(t)
	needDisplay(t)
	mock, err := webchattest.Start(context.Background(), webchattest.Options{
		PageFile:    "../../hosts/chatgpt/testdata/page.html",
		SandboxPath: "/web-sandbox.oaiusercontent.com/sandbox.html",
		LoginPath:   "/auth/login",
		AppName:     "mcpconform",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	out := filepath.Join(t.TempDir(), "secrets", "chatgpt.json")
	vars := map[string]string{"DISPLAY": os.Getenv("DISPLAY"), "MCPCONFORM_CHATGPT_LOGIN_URL": mock.URL + "auth/login"}
	var stdout bytes.Buffer
	userErr := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err = weblogin.Host(ctx, "chatgpt", weblogin.Options{
		Out: out, Getenv: webchattest.Lookup(vars), Stdout: &stdout,
		Args:          []string{refusingProxy(t)},
		SnapshotEvery: 200 * time.Millisecond,
		OnPage: func(p playwright.Page) {
			// The user: log in, wait for the product, close the window.
			userErr <- func() error {
				if err := p.Locator(`[data-testid="login-button"]`).Click(); err != nil {
					return err
				}
				if err := p.Locator("#prompt-textarea").WaitFor(); err != nil {
					return err
				}
				return p.Close()
			}()
		},
	})
	if err != nil {
		t.Fatalf("login: %v\n%s", err, stdout.String())
	}
	if err := <-userErr; err != nil {
		t.Fatalf("the simulated user: %v", err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the session file has mode %04o, want 0600", fi.Mode().Perm())
	}
	var l webchattest.Logs
	st, err := webchat.LoadStorageState(out, l.Logf)
	if err != nil || l.String() != "" {
		t.Fatalf("the saved file does not load cleanly: %v %s", err, l.String())
	}
	found := false
	for _, c := range st.State.Cookies {
		found = found || (c.Name == webchattest.SessionCookie && c.Value == mock.Session)
	}
	if !found {
		t.Errorf("the session cookie was not saved (%d cookies)", st.Cookies)
	}
	printed := stdout.String()
	if !strings.Contains(printed, "export MCPCONFORM_CHATGPT_STORAGE_STATE="+out) {
		t.Errorf("the command does not say how to use the file:\n%s", printed)
	}
	if strings.Contains(printed, mock.Session) {
		t.Error("the session was printed")
	}
}

func TestLoginInputErrors(t *testing.T) {
	err := weblogin.Host(context.Background(), "bard", weblogin.Options{Getenv: webchattest.Lookup(nil)})
	var ue *weblogin.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "chatgpt, claude") {
		t.Errorf("unknown host: %v", err)
	}
	err = weblogin.Host(context.Background(), "claude", weblogin.Options{Out: filepath.Join(t.TempDir(), "s.json"), Getenv: webchattest.Lookup(map[string]string{"DISPLAY": "", "WAYLAND_DISPLAY": ""})})
	if err == nil || !strings.Contains(err.Error(), "DISPLAY is unset") {
		t.Errorf("no display: %v", err)
	}
	err = weblogin.Host(context.Background(), "claude", weblogin.Options{Getenv: webchattest.Lookup(map[string]string{"MCPCONFORM_CLAUDE_PAGE_TIMEOUT": "later"})})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "MCPCONFORM_CLAUDE_PAGE_TIMEOUT") {
		t.Errorf("bad profile variable: %v", err)
	}
}

// Through the CLI: a missing --host is a usage error (exit 2).
func TestLoginCommandUsage(t *testing.T) {
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	if err := app.Run([]string{"mcpconform", "login", "--host", "bard"}); exitCode(err) != ExitUsage {
		t.Errorf("--host bard: exit %d (%v)", exitCode(err), err)
	}
}
