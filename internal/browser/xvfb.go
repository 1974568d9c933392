package browser

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoXvfb means a headed browser was asked for on a machine without a
// display, and Xvfb, which would give it one, is not installed.
var ErrNoXvfb = errors.New("a headed browser needs a display: DISPLAY is unset and Xvfb is not installed (Debian: apt-get install xvfb), or run without --headed")

// XvfbScreen is the size and depth of the virtual screen: large enough for
// a chat product's desktop layout (side bar, conversation, composer).
const XvfbScreen = "1440x1000x24"

// Xvfb is a virtual X server started for a headed browser.
type Xvfb struct {
	// Display is the X display it serves, e.g. ":99".
	Display string

	cmd        *exec.Cmd
	exited     chan struct{}
	prevSet    bool
	prevValue  string
	stderr     *capped
	closeOnce  sync.Once
	closeError error
}

// EnsureDisplay gives a headed browser an X display. When DISPLAY is set
// (and not empty) it does nothing and returns nil, nil. Otherwise it starts
// Xvfb on a free display number and points DISPLAY at it for this process,
// so call it before Launch: the Playwright driver and Chromium inherit the
// environment when they start. Close the returned Xvfb (nil-safe) after the
// browser to stop it and restore DISPLAY.
func EnsureDisplay(ctx context.Context, logf func(string, ...any)) (*Xvfb, error) {
	if os.Getenv("DISPLAY") != "" {
		return nil, nil
	}
	x, err := StartXvfb(ctx)
	if err != nil {
		return nil, err
	}
	if logf != nil {
		logf("DISPLAY is unset: started Xvfb on %s (pid %d) for the headed browser", x.Display, x.cmd.Process.Pid)
	}
	return x, nil
}

// StartXvfb starts Xvfb on a display number it picks itself (-displayfd,
// so two runs on one machine never race for a number), waits until it
// accepts connections, and sets DISPLAY for this process.
func StartXvfb(ctx context.Context) (*Xvfb, error) {
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, ErrNoXvfb
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	x := &Xvfb{exited: make(chan struct{}), stderr: &capped{max: 4096}}
	// fd 3 in the child is the write end of the pipe; Xvfb writes the
	// display number and a newline there once it is ready.
	x.cmd = exec.Command(bin, "-displayfd", "3", "-screen", "0", XvfbScreen, "-nolisten", "tcp")
	x.cmd.ExtraFiles = []*os.File{w}
	x.cmd.Stderr = x.stderr
	// A process group of its own: a Ctrl-C in the terminal reaches
	// mcpconform, which stops Xvfb in order, not both at once.
	x.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := x.cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	w.Close()
	go func() {
		x.cmd.Wait()
		close(x.exited)
	}()

	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		got <- answer{line, err}
	}()
	fail := func(err error) (*Xvfb, error) {
		x.stop()
		if msg := strings.TrimSpace(x.stderr.String()); msg != "" {
			err = fmt.Errorf("%w; Xvfb said: %s", err, msg)
		}
		return nil, err
	}
	select {
	case a := <-got:
		n, perr := strconv.Atoi(strings.TrimSpace(a.line))
		if perr != nil {
			return fail(fmt.Errorf("Xvfb did not report a display number (read %q: %v)", a.line, a.err))
		}
		x.Display = ":" + strconv.Itoa(n)
	case <-x.exited:
		return fail(fmt.Errorf("Xvfb exited at start: %v", x.cmd.ProcessState))
	case <-time.After(15 * time.Second):
		return fail(errors.New("Xvfb did not become ready within 15s"))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	x.prevValue, x.prevSet = os.LookupEnv("DISPLAY")
	os.Setenv("DISPLAY", x.Display)
	return x, nil
}

// PID is the Xvfb process id (0 for a nil Xvfb).
func (x *Xvfb) PID() int {
	if x == nil || x.cmd == nil || x.cmd.Process == nil {
		return 0
	}
	return x.cmd.Process.Pid
}

// Close stops Xvfb (SIGTERM, SIGKILL after 3 s) and restores DISPLAY as it
// was. It is safe on a nil Xvfb and safe to call twice.
func (x *Xvfb) Close() error {
	if x == nil {
		return nil
	}
	x.closeOnce.Do(func() {
		if os.Getenv("DISPLAY") == x.Display {
			if x.prevSet {
				os.Setenv("DISPLAY", x.prevValue)
			} else {
				os.Unsetenv("DISPLAY")
			}
		}
		x.closeError = x.stop()
	})
	return x.closeError
}

func (x *Xvfb) stop() error {
	select {
	case <-x.exited:
		return nil
	default:
	}
	pgid := x.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-x.exited:
		return nil
	case <-time.After(3 * time.Second):
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-x.exited:
		return nil
	case <-time.After(3 * time.Second):
		return fmt.Errorf("Xvfb (pid %d) did not exit", pgid)
	}
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
