package inspector

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/npmcache"
)

// Version is the MCP Inspector release this driver installs, drives and
// keeps its expectations for (expectations/inspector.yaml).
const Version = "2.12.0"

// Package is the npm package the driver installs.
const Package = "@modelcontextprotocol/inspector"

// Environment variables that make the driver attach to an Inspector that is
// already running instead of starting its own.
const (
	EnvURL   = "MCPCONFORM_INSPECTOR_URL"
	EnvToken = "MCPCONFORM_INSPECTOR_TOKEN"
)

// Sentinel errors; the messages say what to install or set.
var (
	ErrNoNPM      = errors.New("no npm found: the Inspector driver installs " + Package + "@" + Version + " with npm on first use (install Debian's npm, or set " + EnvURL + " and " + EnvToken + " to use a running Inspector)")
	ErrInstall    = errors.New("installing " + Package + "@" + Version + " with npm failed")
	ErrStart      = errors.New("the MCP Inspector did not start")
	ErrAttach     = errors.New("no MCP Inspector answers at " + EnvURL)
	ErrNoToken    = errors.New(EnvURL + " is set but " + EnvToken + " is not: set it to the Inspector's API token (MCP_INSPECTOR_API_TOKEN)")
	ErrBadAttach  = errors.New(EnvURL + " is not an http(s) URL")
	ErrBadToken   = errors.New(EnvToken + " is not the Inspector's API token (MCP_INSPECTOR_API_TOKEN)")
	ErrNotStarted = errors.New("the Inspector was never started")
)

// instance is an Inspector the driver talks to: one it started, or one it
// attached to.
type instance struct {
	// URL is the Inspector's web UI (scheme://host:port, no path).
	URL   string
	Token string
	// proc is nil when attached.
	proc *process
}

// launcher is where the web launcher sits inside an install prefix.
func launcher(prefix string) string {
	return filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
}

// installed reports whether prefix holds the pinned Inspector.
func installed(prefix string) bool {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "inspector", "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.Version != Version {
		return false
	}
	_, err = os.Stat(launcher(prefix))
	return err == nil
}

// defaultPrefix is ~/.cache/mcpconform/inspector-<Version>.
func defaultPrefix() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "mcpconform", "inspector-"+Version)
}

// findNPM finds npm on PATH or next to the Node binary.
func findNPM(node string) (string, error) {
	p, err := npmcache.FindNPM(node)
	if err != nil {
		return "", ErrNoNPM
	}
	return p, nil
}

// install puts the pinned Inspector into prefix unless it is there, through
// internal/npmcache: into a sibling temporary directory, renamed into place
// once the launcher is there, so an interrupted or concurrent install never
// leaves a half-filled prefix.
func install(ctx context.Context, npm, prefix string, logf func(string, ...any)) error {
	if installed(prefix) {
		return nil
	}
	_, err := npmcache.EnsureWith(ctx, Package+"@"+Version, npmcache.Options{Dir: prefix, NPM: npm, Logf: logf,
		// --ignore-scripts (npmcache's default): the package's postinstall
		// only matters in a source checkout, and nothing the web client
		// needs builds at install time.
		Verify: func(dir string) error {
			if !installed(dir) {
				return fmt.Errorf("%s is missing", launcher(dir))
			}
			return nil
		}})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInstall, err)
	}
	return nil
}

// freePorts returns n distinct free loopback ports (listen on :0, close).
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// process is an Inspector the driver started, in a process group of its own.
type process struct {
	cmd   *exec.Cmd
	home  string
	out   *ring
	done  chan struct{}
	err   error // set before done closes
	stop  sync.Once
	Ports struct{ Client, Sandbox, AppOrigin int }
}

// start launches the Inspector's web client from prefix with a throwaway
// HOME, bound to 127.0.0.1 on free ports, with a random API token, and
// waits until its UI and sandbox ports answer.
func start(ctx context.Context, node, prefix string, timeout time.Duration) (*instance, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, fmt.Errorf("%w: picking ports: %v", ErrStart, err)
	}
	home, err := os.MkdirTemp("", "mcpconform-inspector-home-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	token := randomHex(24)
	p := &process{home: home, out: &ring{max: 64 << 10}, done: make(chan struct{})}
	p.Ports.Client, p.Ports.Sandbox, p.Ports.AppOrigin = ports[0], ports[1], ports[2]

	// The command does not follow ctx: the Inspector must outlive Setup and
	// is stopped by Teardown.
	cmd := exec.Command(node, launcher(prefix), "--web")
	cmd.Dir = home
	cmd.Env = childEnv(map[string]string{
		"HOME":                       home,
		"USERPROFILE":                home,
		"XDG_CONFIG_HOME":            filepath.Join(home, ".config"),
		"XDG_DATA_HOME":              filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME":             filepath.Join(home, ".cache"),
		"MCP_STORAGE_DIR":            filepath.Join(home, "storage"),
		"HOST":                       "127.0.0.1",
		"CLIENT_PORT":                strconv.Itoa(p.Ports.Client),
		"MCP_SANDBOX_PORT":           strconv.Itoa(p.Ports.Sandbox),
		"MCP_APP_ORIGIN_PORT":        strconv.Itoa(p.Ports.AppOrigin),
		"MCP_AUTO_OPEN_ENABLED":      "false",
		"MCP_INSPECTOR_API_TOKEN":    token,
		"MCP_INSPECTOR_SECRET_STORE": "memory",
		"DO_NOT_TRACK":               "1",
		"NO_UPDATE_NOTIFIER":         "1",
		"NODE_ENV":                   "production",
	})
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	p.cmd = cmd
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	inst := &instance{URL: "http://127.0.0.1:" + strconv.Itoa(p.Ports.Client), Token: token, proc: p}
	sandbox := "http://127.0.0.1:" + strconv.Itoa(p.Ports.Sandbox) + "/sandbox"
	if err := waitReady(ctx, p, timeout, inst.URL+"/", sandbox); err != nil {
		p.Stop(5 * time.Second)
		return nil, err
	}
	return inst, nil
}

// childEnv is a minimal environment: no MCP_*, DANGEROUSLY_* or proxy
// settings of the caller reach the Inspector.
func childEnv(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "LANG" || k == "TZ" || k == "TMPDIR" || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// noProxy is an HTTP client that always goes straight to loopback.
var noProxy = &http.Client{
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
	Timeout:   3 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// waitReady polls the UI until it answers 200 and the sandbox until it
// answers at all, or the process dies, or timeout passes.
func waitReady(ctx context.Context, p *process, timeout time.Duration, ui, sandbox string) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		last = probe(ctx, ui, true)
		if last == nil {
			last = probe(ctx, sandbox, false)
			if last == nil {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w: it exited (%v) before it answered on %s:\n%s", ErrStart, p.err, ui, tail(p.out.String(), 2000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s did not answer within %s (%v):\n%s", ErrStart, ui, timeout, last, tail(p.out.String(), 2000))
		}
	}
}

func probe(ctx context.Context, u string, want200 bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := noProxy.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if want200 && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u, resp.Status)
	}
	return nil
}

// attach checks that an Inspector answers at rawURL and returns it.
func attach(ctx context.Context, rawURL, token string) (*instance, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q", ErrBadAttach, rawURL)
	}
	if token == "" {
		return nil, ErrNoToken
	}
	base := u.Scheme + "://" + u.Host
	if err := probe(ctx, base+"/", true); err != nil {
		return nil, fmt.Errorf("%w=%s: %v", ErrAttach, rawURL, err)
	}
	// The token gates the Inspector's API (and its deep link): check it now
	// rather than wait for a connection that never comes.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/config", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-mcp-remote-auth", "Bearer "+token)
	resp, err := noProxy.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w=%s: %v", ErrAttach, rawURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, fmt.Errorf("%w (the Inspector at %s answered %s)", ErrBadToken, base, resp.Status)
	}
	return &instance{URL: base, Token: token}, nil
}

// PID is the process (and process group) id, 0 when not started.
func (p *process) PID() int {
	if p == nil || p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Stop ends the Inspector's whole process group: SIGTERM, then SIGKILL
// after grace, and removes its throwaway HOME.
func (p *process) Stop(grace time.Duration) error {
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
				err = fmt.Errorf("the Inspector (pid %d) did not exit after SIGKILL", p.PID())
			}
		}
		// Whatever the launcher left behind in its group goes too.
		signalGroup(p.cmd, syscall.SIGKILL)
		os.RemoveAll(p.home)
	})
	return err
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

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// StartInstance finds or starts an Inspector the way Setup does (attach
// through MCPCONFORM_INSPECTOR_URL/_TOKEN, else install on first use and
// start one with the Node of env.Browser) and returns its web UI URL
// (scheme://host:port) and API token, for callers that drive the Inspector
// themselves, such as hosts/generic's tests of an env-defined profile. stop
// ends an Inspector it started; for an attached one it does nothing.
func StartInstance(ctx context.Context, env hosts.Env, o Options) (url, token string, stop func() error, err error) {
	h := NewWithOptions(o)
	h.logf = env.Logf
	if h.logf == nil {
		h.logf = func(string, ...any) {}
	}
	inst, err := h.instance(ctx, env)
	if err != nil {
		return "", "", nil, err
	}
	stop = func() error {
		if inst.proc == nil {
			return nil
		}
		return inst.proc.Stop(3 * time.Second)
	}
	return inst.URL, inst.Token, stop, nil
}
