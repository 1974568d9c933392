package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"

	weblogin "github.com/mcpconform/mcpconform/internal/login"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
)

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
	if err := testwait.Recv(t, userErr, time.Minute, "the simulated user never finished"); err != nil {
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
