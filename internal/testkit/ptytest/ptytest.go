// Package ptytest is a pseudo-terminal for tests that play a person at a
// terminal: the code under test reads and writes one end (TTY, or a
// started command's terminal), the test reads what the screen shows and
// types at the other (Person).
package ptytest

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Terminal is a pseudo-terminal whose screen is recorded.
type Terminal struct {
	// Person is the person's end: what is typed there, TTY reads.
	Person *os.File
	// TTY is the program's end (nil for Start: the command holds it).
	TTY *os.File
	// Timeout bounds each WaitFor; 10 s unless set.
	Timeout time.Duration

	t     testing.TB
	mu    sync.Mutex
	seen  strings.Builder
	fresh chan struct{}
	done  chan struct{}
}

// Open is a new pseudo-terminal, closed when the test ends. Without one
// on this machine the test skips.
func Open(t testing.TB) *Terminal {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	t.Cleanup(func() { ptm.Close(); tty.Close() })
	return record(t, ptm, tty)
}

// Start starts cmd on a new pseudo-terminal, closed when the test ends.
// Without one on this machine the test skips.
func Start(t testing.TB, cmd *exec.Cmd) *Terminal {
	t.Helper()
	ptm, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	return record(t, ptm, nil)
}

func record(t testing.TB, ptm, tty *os.File) *Terminal {
	tm := &Terminal{Person: ptm, TTY: tty, t: t, fresh: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			if n > 0 {
				tm.mu.Lock()
				tm.seen.Write(buf[:n])
				tm.mu.Unlock()
				select {
				case tm.fresh <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return tm
}

// Screen is all the terminal has shown so far.
func (tm *Terminal) Screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.seen.String()
}

// Done is closed once the screen can show nothing more (the program's end
// closed): all it wrote has been read.
func (tm *Terminal) Done() <-chan struct{} { return tm.done }

// WaitFor waits until the screen shows s after the offset from, and
// returns the offset just past it; after Timeout the test fails.
func (tm *Terminal) WaitFor(s string, from int) int {
	tm.t.Helper()
	timeout := tm.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	deadline := time.After(timeout)
	for {
		all := tm.Screen()
		if i := strings.Index(all[min(from, len(all)):], s); i >= 0 {
			return from + i + len(s)
		}
		select {
		case <-tm.fresh:
		case <-deadline:
			tm.t.Fatalf("the terminal never showed %q within %s; it shows:\n%s", s, timeout, all[min(from, len(all)):])
		}
	}
}

// Type types s at the person's end, as is ("\r" is Enter).
func (tm *Terminal) Type(s string) {
	tm.t.Helper()
	if _, err := tm.Person.WriteString(s); err != nil {
		tm.t.Errorf("typing %q: %v", s, err)
	}
}
