// Package builtin is the list of hosts built into mcpconform: importing it
// registers each of them with package hosts (each host package's init
// calls hosts.Register). Adding a built-in host is its own folder plus one
// line here.
package builtin

import (
	_ "github.com/mcpconform/mcpconform/hosts/appbridge"
	_ "github.com/mcpconform/mcpconform/hosts/chatgpt"
	_ "github.com/mcpconform/mcpconform/hosts/claude"
	_ "github.com/mcpconform/mcpconform/hosts/connect"
	_ "github.com/mcpconform/mcpconform/hosts/generic"
	_ "github.com/mcpconform/mcpconform/hosts/inspector"
	_ "github.com/mcpconform/mcpconform/hosts/mcpui"
	_ "github.com/mcpconform/mcpconform/hosts/mcpuse"
	_ "github.com/mcpconform/mcpconform/hosts/reference"
)
