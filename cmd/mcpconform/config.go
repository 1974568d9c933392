package main

import (
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
