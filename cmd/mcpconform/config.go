package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sethvargo/go-envconfig"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/generic"
	"github.com/mcpconform/mcpconform/hosts/inspector"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/cliconfig"
	"github.com/mcpconform/mcpconform/internal/envkeys"
)

// load is the one configuration mechanism of every command
// (internal/cliconfig): MCPCONFORM_* variables, then the flags given. A
// MCPCONFORM_* variable that no command reads is refused, so a misspelt
// one (MCPCONFORM_TIMOUT) cannot be silently ignored.
func load(c *cli.Context, cfg any) error {
	if err := cliconfig.Load(c, cfg); err != nil {
		return err
	}
	return checkEnviron(environ)
}

// noArgs refuses arguments to a command that takes none, as a usage error;
// hint, when given, says what to use instead.
func noArgs(c *cli.Context, hint string) error {
	if c.Args().Len() == 0 {
		return nil
	}
	if hint != "" {
		hint = " (" + hint + ")"
	}
	return usage(fmt.Errorf("%s takes no arguments, got %q%s", c.Command.Name, c.Args().Slice(), hint))
}

// loadNoArgs is noArgs, then load into cfg; a configuration error is a
// usage error too.
func loadNoArgs(c *cli.Context, cfg any, hint string) error {
	if err := noArgs(c, hint); err != nil {
		return err
	}
	if err := load(c, cfg); err != nil {
		return usage(err)
	}
	return nil
}

// vocabulary is every variable mcpconform reads: each command's settings,
// the test and CI switches, and the per-host fields of profiles and
// built-in hosts.
func vocabulary() cliconfig.Vocabulary {
	var names []string
	for _, cfg := range []any{Config{}, reportConfig{}, serveConfig{}, browserConfig{}, benchConfig{}, soakConfig{}} {
		names = append(names, cliconfig.Names(cfg)...)
	}
	names = append(names,
		// Read outside the command structs: the browser and npm
		// installers, and the test suite's switches.
		"NO_BROWSER_DOWNLOAD", "CACHE", "REQUIRE_BROWSER", "FFMPEG",
		"SELFTEST", "SELFTEST_PARALLEL", "SPECIFICITY", "VARIATIONS", "INTEROP_DIR", "CONSUMERS_MODULES",
		"SCREENSHOT", "HTML_SCREENSHOT", "HTML_SCREENSHOT_DIR", "HTML_SCREENSHOT_PAGE", "TEST_MARKER",
		"WIRE_TRACE", "SPEC_DIR", "E2E_EXTENDED")
	return cliconfig.Vocabulary{Names: names, Fields: generic.Variables, Builtin: builtinHosts()}
}

// builtinHosts are the registered hosts, each with the fields of
// MCPCONFORM_<HOST>_* it reads: those its constructor reads from the
// run's settings (the way docs/writing-a-host.md has a host read its
// own), and those the drivers that read theirs later take: the Inspector
// driver's attach variables and the hosted chats' profile overrides. A
// profile cannot take their names.
func builtinHosts() []cliconfig.BuiltinHost {
	var out []cliconfig.BuiltinHost
	for _, name := range hosts.Names() {
		own := cliconfig.Prefix + cliconfig.Infix(name) + "_"
		b := cliconfig.BuiltinHost{Name: name}
		r := &readRecorder{}
		h, _ := hosts.New(hosts.Params{Name: name, Environ: r})
		for _, k := range r.keys {
			if f, ok := strings.CutPrefix(k, own); ok && !slices.Contains(b.Fields, f) {
				b.Fields = append(b.Fields, f)
			}
		}
		switch h.(type) {
		case *webchat.Chat:
			b.Fields = append(b.Fields, cliconfig.Names(webchat.Profile{})...)
		case *inspector.Host:
			b.Fields = append(b.Fields, strings.TrimPrefix(inspector.EnvURL, own), strings.TrimPrefix(inspector.EnvToken, own))
		}
		out = append(out, b)
	}
	return out
}

// readRecorder is an empty environment that remembers what was looked up.
type readRecorder struct{ keys []string }

func (r *readRecorder) Lookup(key string) (string, bool) {
	r.keys = append(r.keys, key)
	return "", false
}

// checkEnviron refuses a MCPCONFORM_* variable of l that no command or
// host reads (vocabulary): the check of every command, `hosts` included,
// on the variables it is given. also are more keys to count as set.
func checkEnviron(l envconfig.Lookuper, also ...string) error {
	return vocabulary().Check(append(envkeys.Of(l), also...))
}

// environ is where MCPCONFORM_* variables are looked up.
var environ = cliconfig.Environ

// browserConfig is the browser and driver every browser command starts.
type browserConfig struct {
	Browser string `env:"BROWSER" flag:"browser"`
	Node    string `env:"NODE" flag:"node"`
}

func (bc browserConfig) paths() browser.Paths {
	return browser.Paths{Browser: bc.Browser, Node: bc.Node}
}

// browserFlags are the flags of browserConfig, and with remote those of a
// remote browser as well (BROWSER_WS, CDP).
func browserFlags(remote bool) []cli.Flag {
	fs := []cli.Flag{
		&cli.StringFlag{Name: "browser", Usage: "Chromium binary `PATH` [MCPCONFORM_BROWSER]"},
		&cli.StringFlag{Name: "node", Usage: "Node.js >= 20 binary `PATH` for the Playwright driver [MCPCONFORM_NODE]"},
	}
	if remote {
		fs = append(fs,
			&cli.StringFlag{Name: "browser-ws", Usage: "use the Playwright browser server at `URL` (ws://…, e.g. from `playwright run-server`) instead of a local Chromium [MCPCONFORM_BROWSER_WS]"},
			&cli.StringFlag{Name: "cdp", Usage: "attach to a running Chrome or Electron app with remote debugging at `URL` (http:// or ws://) [MCPCONFORM_CDP]"})
	}
	return fs
}
