package e2etest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

// recorder stands in for a test: it records Skip and Fatal and stops the
// calling goroutine as they do.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func call(t *testing.T, err error) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		missing(r, err)
	}()
	<-done
	return r
}

func TestMissingBrowserSkipsOrFails(t *testing.T) {
	absent := fmt.Errorf("starting the browser: %w", browser.ErrNoBrowser)
	t.Setenv(RequireEnv, "")
	if r := call(t, absent); !strings.HasPrefix(r.skipped, "no Chromium: ") || !strings.Contains(r.skipped, "apt-get install chromium") || r.failed != "" {
		t.Errorf("without %s a missing browser must skip by name: skipped %q, failed %q", RequireEnv, r.skipped, r.failed)
	}
	if r := call(t, fmt.Errorf("x: %w", browser.ErrNoNode)); r.skipped == "" {
		t.Errorf("a missing Node must skip too: %+v", r)
	}
	t.Setenv(RequireEnv, "1")
	if r := call(t, absent); r.skipped != "" || !strings.Contains(r.failed, "no Chromium") || !strings.Contains(r.failed, RequireEnv+"=1") {
		t.Errorf("with %s=1 a missing browser must fail: skipped %q, failed %q", RequireEnv, r.skipped, r.failed)
	}
	// Anything else is not a missing browser: missing returns and the
	// caller fails the test with the error.
	t.Setenv(RequireEnv, "")
	if r := call(t, errors.New("the driver crashed")); r.skipped != "" || r.failed != "" {
		t.Errorf("another error must not skip: %+v", r)
	}
}

// With the browser hidden, Require and Session skip the test; under
// -short they skip before looking for one.
func TestHiddenBrowserSkips(t *testing.T) {
	want := "no Chromium: "
	if testing.Short() {
		want = "-short: this test drives a real browser"
	}
	t.Setenv("MCPCONFORM_BROWSER", "/nonexistent/chromium")
	t.Setenv(RequireEnv, "")
	for name, f := range map[string]func(testing.TB){"Require": Require, "Session": func(tb testing.TB) { Session(tb) }} {
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); f(r) }()
		<-done
		if !strings.HasPrefix(r.skipped, want) || r.failed != "" {
			t.Errorf("%s with no browser: skipped %q, failed %q", name, r.skipped, r.failed)
		}
	}
}
