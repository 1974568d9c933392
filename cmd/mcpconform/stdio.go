package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
)

func stdioCommand() *cli.Command {
	return &cli.Command{
		Name:      "stdio",
		Usage:     "serve a run's fixture MCP server over stdio, for a host that launches local MCP servers as commands",
		ArgsUsage: "URL",
		Description: `Relays newline-delimited JSON-RPC between standard input and output and
the fixture server at URL (Streamable HTTP, as 'run --host connect' prints
it), every message unchanged in both directions. Give a host that only
launches local servers this command line as the server, e.g. in Claude
Desktop's claude_desktop_config.json:

  {"mcpServers": {"mcpconform": {"command": "mcpconform",
    "args": ["stdio", "http://127.0.0.1:8080/mcp"]}}}

It exits 0 when the host closes standard input, 3 when the fixture server
cannot be reached or cuts the connection. Nothing but the protocol is
written to standard output; trouble goes to standard error.`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage(fmt.Errorf("stdio takes the fixture server's URL, e.g. mcpconform stdio http://127.0.0.1:8080/mcp (got %d arguments)", c.NArg()))
			}
			u, err := url.Parse(c.Args().First())
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return usage(fmt.Errorf("stdio: %q is not an http(s) URL of a fixture server (e.g. http://127.0.0.1:8080/mcp)", c.Args().First()))
			}
			ctx, stop := untilSignal(c.Context)
			defer stop()
			if err := mcpserver.BridgeStdio(ctx, u.String(), io.NopCloser(c.App.Reader), nopWriteCloser{c.App.Writer}); err != nil {
				return &exitError{code: ExitInfra, err: fmt.Errorf("stdio: %w", err)}
			}
			return nil
		},
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
