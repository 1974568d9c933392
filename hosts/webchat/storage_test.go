package webchat

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mxschmitt/playwright-go"
)

const (
	secretCookie = "sess-7f3a9c1e2b4d5f60-SECRET"
	secretLocal  = "tok-0c8e6a4b2d1f3e57-SECRET"
)

func writeState(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func validState() string {
	b, _ := json.Marshal(playwright.StorageState{
		Cookies: []playwright.Cookie{{Name: "__Secure-session", Value: secretCookie, Domain: ".chatgpt.com", Path: "/", Expires: -1, HttpOnly: true, Secure: true}},
		Origins: []playwright.Origin{{Origin: "https://chatgpt.com", LocalStorage: []playwright.NameValue{{Name: "token", Value: secretLocal}}}},
	})
	return string(b)
}

type capture struct{ lines []string }

func (c *capture) logf(format string, args ...any) {
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
}
func (c *capture) String() string { return strings.Join(c.lines, "\n") }

func noSecrets(t *testing.T, where, s string) {
	t.Helper()
	for _, secret := range []string{secretCookie, secretLocal, "SECRET"} {
		if strings.Contains(s, secret) {
			t.Errorf("%s contains the storage state's contents (%q): %s", where, secret, s)
		}
	}
}

// A storage state with any mode but 0600 is used with a warning that names
// the path and the mode, and says what to do; 0600 gets none. The contents
// appear in no log line.
func TestStorageStateModeWarns(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		mode os.FileMode
		warn string
	}{
		{0o600, ""},
		{0o644, "other users can read it"},
		{0o640, "other users can read it"},
		{0o604, "other users can read it"},
		{0o666, "other users can read it"},
		{0o400, "expected 0600"},
		{0o700, "expected 0600"},
	} {
		path := writeState(t, validState(), tc.mode)
		var c capture
		st, err := LoadStorageState(path, c.logf)
		if err != nil {
			t.Fatalf("%04o: %v", tc.mode, err)
		}
		if st.Cookies != 1 || st.Origins != 1 || len(st.State.Cookies) != 1 || st.State.Cookies[0].Value != secretCookie {
			t.Errorf("%04o: state not loaded: %+v", tc.mode, st)
		}
		log := c.String()
		if tc.warn == "" {
			if log != "" {
				t.Errorf("0600 warned: %s", log)
			}
			continue
		}
		for _, want := range []string{"warning", path, fmt.Sprintf("%04o", tc.mode), tc.warn, "chmod 600 " + path} {
			if !strings.Contains(log, want) {
				t.Errorf("%04o: warning %q lacks %q", tc.mode, log, want)
			}
		}
		noSecrets(t, "the warning", log)
	}
}

// Broken files fail with the path and a position, never with any of their
// contents (a JSON syntax error's own message quotes the bad character).
func TestStorageStateErrorsNeverQuoteContents(t *testing.T) {
	full := validState()
	cases := map[string]string{
		"truncated":        full[:len(full)/2],
		"syntax":           `{"cookies": [{"name": "s", "value": "` + secretCookie + `"}], SECRET}`,
		"wrong type":       `{"cookies": [{"name": "s", "value": 12345, "domain": "` + secretCookie + `"}]}`,
		"cookie no domain": `{"cookies": [{"name": "s", "value": "` + secretCookie + `", "path": "/"}], "origins": []}`,
		"not an object":    `"` + secretCookie + `"`,
		"trailing garbage": full + `SECRET`,
	}
	for name, content := range cases {
		path := writeState(t, content, 0o600)
		var c capture
		_, err := LoadStorageState(path, c.logf)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: the error does not name the file: %v", name, err)
		}
		noSecrets(t, name+" error", err.Error())
		// encoding/json's syntax errors quote the offending character.
		if strings.Contains(err.Error(), "invalid character") {
			t.Errorf("%s: the error quotes the file: %v", name, err)
		}
		noSecrets(t, name+" log", c.String())
	}
	if _, err := LoadStorageState(filepath.Join(t.TempDir(), "missing.json"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := LoadStorageState(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: %v", err)
	}
}

// Errors from the browser that might echo a cookie are redacted.
func TestStorageStateRedacts(t *testing.T) {
	st, err := LoadStorageState(writeState(t, validState(), 0o600), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("addCookies: invalid cookie %s; localStorage %s", secretCookie, secretLocal)
	got := st.RedactErr(errors.New(msg)).Error()
	noSecrets(t, "the redacted error", got)
	if !strings.Contains(got, "[redacted]") {
		t.Errorf("nothing redacted: %s", got)
	}
	if e := errors.New("unrelated"); st.RedactErr(e) != e {
		t.Error("an error without secrets was rewrapped")
	}
}

// SaveStorageState leaves a 0600 file even over a looser one and under a
// permissive umask, and what it writes loads back.
func TestSaveStorageStateIsPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "sub", "state.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var st playwright.StorageState
	if err := json.Unmarshal([]byte(validState()), &st); err != nil {
		t.Fatal(err)
	}
	if err := SaveStorageState(path, &st); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
	}
	var c capture
	back, err := LoadStorageState(path, c.logf)
	if err != nil || back.Cookies != 1 || c.String() != "" {
		t.Errorf("round trip: %v %+v %s", err, back, c.String())
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".storage-state-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
