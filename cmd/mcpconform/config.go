package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/hosts/generic"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/cliconfig"
)

// load is the one configuration mechanism of every command
// (internal/cliconfig): MCPCONFORM_* variables, then the flags given. A
// MCPCONFORM_* variable that no command reads is refused, so a misspelt
// one (MCPCONFORM_TIMOUT) cannot be silently ignored.
func load(c *cli.Context, cfg any) error {
	if err := cliconfig.Load(c, cfg); err != nil {
		return err
	}
	return vocabulary().Check(os.Environ())
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
		// Read outside the command structs: the Inspector driver, the
		// browser and npm installers, and the test suite's switches.
		"INSPECTOR_TOKEN", "NO_BROWSER_DOWNLOAD", "CACHE", "REQUIRE_BROWSER", "FFMPEG",
		"SELFTEST", "SPECIFICITY", "VARIATIONS", "INTEROP_DIR", "CONSUMERS_MODULES",
		"SCREENSHOT", "HTML_SCREENSHOT", "HTML_SCREENSHOT_DIR", "HTML_SCREENSHOT_PAGE", "TEST_MARKER",
		"WIRE_TRACE", "SPEC_DIR")
	fields := append(append([]string(nil), generic.Variables...), cliconfig.Names(webchat.Profile{})...)
	return cliconfig.Vocabulary{Names: names, Fields: fields}
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
