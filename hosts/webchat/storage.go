package webchat

import (
	"github.com/mcpconform/mcpconform/internal/atomicfile"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mxschmitt/playwright-go"
)

// MaxStorageState bounds a storage-state file (a logged-in chat product's
// is a few tens of kilobytes).
const MaxStorageState = 16 << 20

// StorageState is a Playwright storage state read from a file, ready for a
// browser context, with what it must never leak.
type StorageState struct {
	State *playwright.OptionalStorageState
	// Cookies and Origins count what it holds (safe to log).
	Cookies, Origins int
	secrets          []string
}

// LoadStorageState reads a Playwright storage state (the JSON that
// BrowserContext.storageState() writes) from path. The file holds a login
// session, so:
//   - it is read from a path only, never from an inline value;
//   - a mode other than 0600 gets a warning through logf (it is still used);
//   - its contents never appear in an error or a log line: errors name the
//     path and, for malformed JSON, a byte offset, nothing else.
func LoadStorageState(path string, logf func(string, ...any)) (*StorageState, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("storage state: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("storage state: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("storage state %s is a directory, not a file", path)
	}
	if perm := st.Mode().Perm(); perm != 0o600 {
		why := "expected 0600"
		if perm&0o077 != 0 {
			why = "other users can read it, and it holds a login session"
		}
		logf("warning: storage state %s has mode %04o (%s): chmod 600 %s", path, perm, why, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxStorageState+1))
	if err != nil {
		return nil, fmt.Errorf("storage state %s: %w", path, err)
	}
	if len(b) > MaxStorageState {
		return nil, fmt.Errorf("storage state %s is larger than %d bytes", path, MaxStorageState)
	}
	var raw playwright.StorageState
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("storage state %s is not a Playwright storage state: %s", path, jsonProblem(err))
	}
	out := &StorageState{State: &playwright.OptionalStorageState{Origins: raw.Origins, Credentials: raw.Credentials}, Cookies: len(raw.Cookies), Origins: len(raw.Origins)}
	for i, c := range raw.Cookies {
		if c.Name == "" || c.Domain == "" || c.Path == "" {
			return nil, fmt.Errorf("storage state %s: cookie #%d lacks a name, domain or path", path, i+1)
		}
		out.State.Cookies = append(out.State.Cookies, c.ToOptionalCookie())
		out.secrets = append(out.secrets, c.Value)
	}
	for _, o := range raw.Origins {
		for _, kv := range o.LocalStorage {
			out.secrets = append(out.secrets, kv.Value)
		}
	}
	return out, nil
}

// jsonProblem describes a JSON error without quoting the input (a syntax
// error's message quotes the offending character).
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type at byte %d", te.Field, te.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	}
	return "malformed JSON"
}

// Redact replaces every cookie and localStorage value of the state in msg
// (values shorter than 4 bytes are left: they carry no session and would
// garble any message).
func (s *StorageState) Redact(msg string) string {
	if s == nil {
		return msg
	}
	for _, v := range s.secrets {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	return msg
}

// RedactErr is Redact for an error (nil stays nil).
func (s *StorageState) RedactErr(err error) error {
	if err == nil || s == nil {
		return err
	}
	if m := s.Redact(err.Error()); m != err.Error() {
		return errors.New(m)
	}
	return err
}

// SaveStorageState writes st to path with mode 0600: into a temporary file
// created with that mode next to path, then renamed over it, so the
// session is never readable by others, not even for a moment.
func SaveStorageState(path string, st *playwright.StorageState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, 0o600, 0o700, func(w io.Writer) error {
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("writing the storage state: %w", err)
		}
		return nil
	})
}
