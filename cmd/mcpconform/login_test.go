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

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"

	weblogin "github.com/mcpconform/mcpconform/internal/login"
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
