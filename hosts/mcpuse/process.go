package mcpuse

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/freeport"
	"github.com/mcpconform/mcpconform/internal/nodeproc"
	"github.com/mcpconform/mcpconform/internal/npmcache"
)

// Version is the @mcp-use/inspector release this driver installs, drives
// and keeps its expectations for (expectations/mcp-use.yaml).
const Version = "20.3.10"

// Spec is the npm package the driver installs. Its CLI (dist/cli.js) is
// one self-contained bundle with the web client inside (dist/app): none of
// its optional peers (mcp-use, React, …) is needed to run it.
const Spec = "@mcp-use/inspector@" + Version

// Sentinel errors.
var (
	ErrStart = errors.New("the mcp-use Inspector did not start")
)

//go:embed loopback.mjs
var loopbackJS string

// cli is where the Inspector's CLI sits inside an install prefix.
func cli(prefix string) string {
	return filepath.Join(npmcache.PackageDir(prefix, Spec), "dist", "cli.js")
}

// Install installs Spec into the npm cache on first use (internal/npmcache:
// ~/.cache/mcpconform/npm/@mcp-use/inspector@<Version>, or dir) and
// returns the prefix. node is the Node.js next to which npm is looked for
// when it is not on PATH.
func Install(ctx context.Context, dir, node string, logf func(string, ...any)) (string, error) {
	return npmcache.EnsureWith(ctx, Spec, npmcache.Options{Dir: dir, Node: node, Logf: logf,
		Verify: func(d string) error {
			if _, err := os.Stat(cli(d)); err != nil {
				return fmt.Errorf("%s is missing", cli(d))
			}
			return nil
		}})
}

// instance is an Inspector the driver started.
type instance struct {
	// URL is the web UI's origin (http://127.0.0.1:port).
	URL  string
	proc *nodeproc.Proc
}

// started is the CLI's line once it listens.
var started = regexp.MustCompile(`MCP Inspector started at http://localhost:(\d+)/inspector`)

// start runs the Inspector's CLI from prefix with node: on a free loopback
// port (the CLI's --port is where its own search for a free port starts;
// the port it took is read from its first line), --no-open, telemetry
// off, bound to 127.0.0.1 by the loopback preload, with a throwaway HOME;
// it waits until the UI answers 200.
func start(ctx context.Context, node, prefix string, timeout time.Duration) (*instance, error) {
	ports, err := freeport.Loopback(1)
	if err != nil {
		return nil, fmt.Errorf("%w: picking a port: %v", ErrStart, err)
	}
	p, err := nodeproc.Start(nodeproc.Options{
		Name:       "the mcp-use Inspector",
		Path:       node,
		Args:       []string{"--import", "data:text/javascript," + url.PathEscape(loopbackJS), cli(prefix), "--port", strconv.Itoa(ports[0]), "--no-open"},
		HomePrefix: "mcpconform-mcpuse-home-",
		Env: map[string]string{
			// The CLI's MCP proxy refuses loopback servers in production
			// unless this says otherwise; the fixture server is on loopback.
			"INSPECTOR_ALLOW_LOOPBACK": "true",
			"NODE_ENV":                 "production",
			// The opt-out its README documents: the page then never starts
			// PostHog (the browser's loopback guard would refuse it anyway).
			"MCP_USE_ANONYMIZED_TELEMETRY": "false",
			"DO_NOT_TRACK":                 "1",
			"NO_UPDATE_NOTIFIER":           "1",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	inst := &instance{proc: p}
	err = p.WaitReady(ctx, timeout, "answering on its port", ErrStart, func() error {
		m := started.FindStringSubmatch(p.Output())
		if m == nil {
			return errors.New("no \"MCP Inspector started at\" line yet")
		}
		inst.URL = "http://127.0.0.1:" + m[1]
		return nodeproc.Probe(ctx, inst.URL+"/inspector", true)
	})
	if err != nil {
		p.Stop(3 * time.Second)
		return nil, err
	}
	return inst, nil
}

// StartInstance installs (first use) and starts an mcp-use Inspector as
// the driver does, for a caller that drives it some other way (a host
// profile, hosts/generic's tests): its web UI's origin and how to stop it.
func StartInstance(ctx context.Context, env hosts.Env, o Options) (url string, stop func() error, err error) {
	logf := env.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	inst, err := launch(ctx, NewWithOptions(o).opts, env.Node, logf)
	if err != nil {
		return "", nil, err
	}
	return inst.URL, func() error { return inst.proc.Stop(3 * time.Second) }, nil
}

// launch installs the Inspector (first use) and starts it with node
// ("": node on PATH).
func launch(ctx context.Context, o Options, node string, logf func(string, ...any)) (*instance, error) {
	if node == "" {
		node = "node"
	}
	ictx, cancel := context.WithTimeout(ctx, o.InstallTimeout)
	prefix, err := Install(ictx, o.Prefix, node, logf)
	cancel()
	if err != nil {
		return nil, err
	}
	return start(ctx, node, prefix, o.StartTimeout)
}
