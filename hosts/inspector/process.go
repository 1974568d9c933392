package inspector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/freeport"
	"github.com/mcpconform/mcpconform/internal/nodeproc"
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
	proc *nodeproc.Proc
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

// start launches the Inspector's web client from prefix with a throwaway
// HOME, bound to 127.0.0.1 on free ports, with a random API token, and
// waits until its UI and sandbox ports answer.
func start(ctx context.Context, node, prefix string, timeout time.Duration) (*instance, error) {
	ports, err := freeport.Loopback(3)
	if err != nil {
		return nil, fmt.Errorf("%w: picking ports: %v", ErrStart, err)
	}
	token := randomHex(24)
	client, sandboxPort := ports[0], ports[1]
	// The process does not follow ctx: the Inspector must outlive Setup and
	// is stopped by Teardown.
	p, err := nodeproc.Start(nodeproc.Options{
		Name:       "the Inspector",
		Path:       node,
		Args:       []string{launcher(prefix), "--web"},
		HomePrefix: "mcpconform-inspector-home-",
		Env: map[string]string{
			"MCP_STORAGE_DIR":            "{home}/storage",
			"HOST":                       "127.0.0.1",
			"CLIENT_PORT":                strconv.Itoa(client),
			"MCP_SANDBOX_PORT":           strconv.Itoa(sandboxPort),
			"MCP_APP_ORIGIN_PORT":        strconv.Itoa(ports[2]),
			"MCP_AUTO_OPEN_ENABLED":      "false",
			"MCP_INSPECTOR_API_TOKEN":    token,
			"MCP_INSPECTOR_SECRET_STORE": "memory",
			"DO_NOT_TRACK":               "1",
			"NO_UPDATE_NOTIFIER":         "1",
			"NODE_ENV":                   "production",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	inst := &instance{URL: "http://127.0.0.1:" + strconv.Itoa(client), Token: token, proc: p}
	sandbox := "http://127.0.0.1:" + strconv.Itoa(sandboxPort) + "/sandbox"
	// Ready: the UI answers 200 and the sandbox answers at all.
	err = p.WaitReady(ctx, timeout, "answering on "+inst.URL+"/", ErrStart, func() error {
		if err := probe(ctx, inst.URL+"/", true); err != nil {
			return err
		}
		return probe(ctx, sandbox, false)
	})
	if err != nil {
		p.Stop(5 * time.Second)
		return nil, err
	}
	return inst, nil
}

// The loopback helpers this driver shares with the others (nodeproc).
var (
	randomHex  = nodeproc.RandomHex
	probe      = nodeproc.Probe
	groupAlive = nodeproc.GroupAlive
)

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
	resp, err := nodeproc.NoProxy.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w=%s: %v", ErrAttach, rawURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, fmt.Errorf("%w (the Inspector at %s answered %s)", ErrBadToken, base, resp.Status)
	}
	return &instance{URL: base, Token: token}, nil
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
