package main

import (
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/internal/cliconfig"
)

// load is the one configuration mechanism of every command
// (internal/cliconfig): MCPCONFORM_* variables, then the flags given.
var load = cliconfig.Load

// environ is where MCPCONFORM_* variables are looked up.
var environ = cliconfig.Environ

// browserConfig is the browser and driver every browser command starts.
type browserConfig struct {
	Browser string `env:"BROWSER" flag:"browser"`
	Node    string `env:"NODE" flag:"node"`
}

func (bc browserConfig) paths() bridge.Paths { return bridge.Paths{Browser: bc.Browser, Node: bc.Node} }

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
