// Package nodeproc starts a third-party host program (a Node.js web
// client installed from npm) the way the host drivers need it: in a
// process group of its own (on Linux killed by the kernel if mcpconform
// dies), with a throwaway HOME and a minimal environment, its output kept
// for error messages; Stop ends the whole group and removes the HOME. It
// also has the loopback helpers those drivers share: free ports, a
// proxy-free readiness probe, waiting for an answer.
package nodeproc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options say what to start.
type Options struct {
	// Name is what messages call the program ("the MCP Inspector").
	Name string
	// Path and Args are the command (Path is the Node binary, say).
	Path string
	Args []string
	// HomePrefix names the throwaway HOME (os.MkdirTemp pattern).
	HomePrefix string
	// Env is set on top of the minimal environment (PATH, LANG, TZ,
	// TMPDIR, LC_* of the caller) and HOME and its XDG directories. A
	// value may use {home} for the throwaway HOME.
	Env map[string]string
}

// Proc is a started program.
type Proc struct {
	name string
	cmd  *exec.Cmd
	home string
	out  *ring
	done chan struct{}
	err  error // set before done closes
	stop sync.Once
}

// Start starts the program; it does not follow a context: it outlives the
// setup that starts it and is ended by Stop.
func Start(o Options) (*Proc, error) {
	home, err := os.MkdirTemp("", o.HomePrefix)
	if err != nil {
		return nil, err
	}
	set := map[string]string{
		"HOME":            home,
		"USERPROFILE":     home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
	}
	for k, v := range o.Env {
		set[k] = strings.ReplaceAll(v, "{home}", home)
	}
	p := &Proc{name: o.Name, home: home, out: &ring{max: 64 << 10}, done: make(chan struct{})}
	cmd := exec.Command(o.Path, o.Args...)
	cmd.Dir = home
	cmd.Env = ChildEnv(set)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	p.cmd = cmd
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// ChildEnv is a minimal environment with set on top: no MCP_*, proxy or
// DANGEROUSLY_* variables of the caller reach the program.
func ChildEnv(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok {
			continue
		}
		if k == "PATH" || k == "LANG" || k == "TZ" || k == "TMPDIR" || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// PID is the process (and process group) id, 0 when not started.
func (p *Proc) PID() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Home is the throwaway HOME (removed by Stop).
func (p *Proc) Home() string { return p.home }

// Done is closed when the program has exited; Err is then its exit status.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the exit status, once Done is closed.
func (p *Proc) Err() error { return p.err }

// Output is the last 64 KiB the program wrote to stdout and stderr.
func (p *Proc) Output() string { return p.out.String() }

// Stop ends the program's whole process group: SIGTERM, then SIGKILL after
// grace, and removes its throwaway HOME.
func (p *Proc) Stop(grace time.Duration) error {
	var err error
	p.stop.Do(func() {
		if p.cmd == nil {
			return
		}
		signalGroup(p.cmd, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			signalGroup(p.cmd, syscall.SIGKILL)
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
				err = fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.PID())
			}
		}
		// Whatever the program left behind in its group goes too.
		signalGroup(p.cmd, syscall.SIGKILL)
		os.RemoveAll(p.home)
	})
	return err
}

// WaitReady calls ready every 100 ms until it returns nil, the program
// exits, ctx ends or timeout passes; the error names the program, what
// ready said last and the tail of its output. startErr is wrapped.
func (p *Proc) WaitReady(ctx context.Context, timeout time.Duration, what string, startErr error, ready func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		last := ready()
		if last == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w: it exited (%v) before %s:\n%s", startErr, p.err, what, Tail(p.Output(), 2000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: not %s within %s (%v):\n%s", startErr, what, timeout, last, Tail(p.Output(), 2000))
		}
	}
}

// NoProxy is an HTTP client that always goes straight to loopback and
// follows no redirect.
var NoProxy = &http.Client{
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
	Timeout:   3 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// Probe GETs u through NoProxy: nil when it answers (with 200, if want200).
func Probe(ctx context.Context, u string, want200 bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := NoProxy.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if want200 && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u, resp.Status)
	}
	return nil
}

// RandomHex is n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Tail is the last n bytes of s, trimmed, with an ellipsis when cut.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ring keeps the last max bytes written to it.
type ring struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.b = append(r.b, p...)
	if len(r.b) > r.max {
		r.b = append([]byte(nil), r.b[len(r.b)-r.max:]...)
	}
	return len(p), nil
}

func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.b)
}
