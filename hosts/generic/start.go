package generic

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// START: a command that runs the host for the run (a development host
// that takes the fixture server's URL when it starts), its output in the
// run's log, stopped with its whole process group at Teardown. READY says
// when it is up.

// startedCmd is START's running process.
type startedCmd struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and its output is read
	err  error         // its exit status, once done
	// outputRead is closed when the output reader has seen the end of it: done
	// waits for it, so a failure's last lines hold everything it printed.
	outputRead chan struct{}

	mu    sync.Mutex
	tail  []string // its last lines of output
	lines chan string
}

// maxTail is how many of START's last lines a failure shows.
const maxTail = 20

// startCommand runs START with the run's placeholders and waits for READY
// within START_TIMEOUT. A command that exits first, or is not ready in
// time, is a *SetupError naming START or READY, with its last lines.
func (h *Host) startCommand(ctx context.Context) error {
	line := expand(h.cfg.start, h.vars)
	cmd := exec.Command("sh", "-c", line)
	setProcessGroup(cmd)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return &SetupError{Variable: h.variable("START"), What: "starting the command", Err: redacted{err: err}, kind: ErrStep}
	}
	s := &startedCmd{cmd: cmd, done: make(chan struct{}), outputRead: make(chan struct{}), lines: make(chan string, 64)}
	h.started = s
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		<-s.outputRead
		close(s.done)
	}()
	go s.read(pr, func(l string) { h.logf("%s start: %s", h.cfg.name, Redact(l)) })
	// The command line itself is not logged: it may carry a token.
	h.logf("%s start: started %s (process group %d)", h.cfg.name, h.variable("START"), cmd.Process.Pid)

	err := h.waitReady(ctx, s)
	if err == nil {
		h.logf("%s start: ready (%s) after %s", h.cfg.name, h.readyWhat(), time.Since(t0).Round(time.Millisecond))
		return nil
	}
	v := "READY"
	if errors.Is(err, errExited) {
		v = "START"
	}
	if tail := s.lastLines(); tail != "" {
		err = fmt.Errorf("%w; its last output:\n%s", err, tail)
	}
	return &SetupError{Variable: h.variable(v), What: h.readyWhat(), Err: redacted{err: err}, kind: ErrStep, Elapsed: time.Since(t0)}
}

var errExited = errors.New("the START command exited before it was ready")

func (h *Host) readyWhat() string {
	if h.cfg.ready.line != "" {
		return fmt.Sprintf("waiting for a line with %q", expand(h.cfg.ready.line, h.vars))
	}
	return "waiting for " + Redact(expand(h.cfg.ready.url, h.vars))
}

// waitReady waits for READY: a line of output containing the text, or the
// URL answering with a status below 500.
func (h *Host) waitReady(ctx context.Context, s *startedCmd) error {
	deadline := time.NewTimer(h.cfg.startTimeout)
	defer deadline.Stop()
	url := expand(h.cfg.ready.url, h.vars)
	line := expand(h.cfg.ready.line, h.vars)
	client := &http.Client{Timeout: 2 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if url != "" {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode < 500 {
					return nil
				}
				last = fmt.Errorf("it answers %s", resp.Status)
			} else {
				last = err
			}
		}
		select {
		case l := <-s.lines:
			if line != "" && strings.Contains(l, line) {
				return nil
			}
		case <-tick.C:
		case <-s.done:
			return fmt.Errorf("%w (%v)", errExited, s.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			msg := fmt.Sprintf("not ready within %s (%s)", h.cfg.startTimeout, h.variable("START_TIMEOUT"))
			if last != nil {
				msg += ": " + last.Error()
			}
			return errors.New(msg)
		}
	}
}

// read logs each line of r and keeps the last ones; lines go to the READY
// waiter too, dropped when it is not listening.
func (s *startedCmd) read(r io.Reader, log func(string)) {
	defer close(s.outputRead)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// Without terminal colours: a READY text must match a line the
		// host coloured word by word, and the run's log is no terminal.
		l := ansiEscape.ReplaceAllString(sc.Text(), "")
		log(l)
		s.mu.Lock()
		s.tail = append(s.tail, l)
		if len(s.tail) > maxTail {
			s.tail = s.tail[1:]
		}
		s.mu.Unlock()
		select {
		case s.lines <- l:
		default:
		}
	}
	io.Copy(io.Discard, r)
}

// ansiEscape matches a terminal's CSI escape sequence (colours, cursor
// moves).
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]")

func (s *startedCmd) lastLines() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.tail))
	for i, l := range s.tail {
		out[i] = "  " + Redact(l)
	}
	return strings.Join(out, "\n")
}

// stop ends START's whole process group: SIGTERM, then SIGKILL after 5 s.
// A process that had already exited on its own is not an error of stop.
func (s *startedCmd) stop() error {
	select {
	case <-s.done:
		killGroup(s.cmd, true) // what it left running
		return nil
	default:
	}
	killGroup(s.cmd, false)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		killGroup(s.cmd, true)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			return fmt.Errorf("the START command (process group %d) did not stop", s.cmd.Process.Pid)
		}
	}
	// The rest of the group, should the leader have gone first.
	killGroup(s.cmd, true)
	return nil
}
