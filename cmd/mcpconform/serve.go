package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mxschmitt/playwright-go"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts/reference"
)

func pwContextOptions() playwright.BrowserNewContextOptions {
	return playwright.BrowserNewContextOptions{}
}

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the fixture MCP servers and the reference host for use by hand, printing their URLs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "address of the reference host page (default 127.0.0.1:0, loopback only)", EnvVars: []string{"MCPCONFORM_LISTEN"}},
		},
		Action: func(c *cli.Context) error {
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			fx, err := fixtures.Start(ctx)
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			defer fx.Close()
			srv, err := reference.NewServer(ctx, reference.ServerOptions{MCPServers: []string{fx.Main.URL, fx.Second.URL}, Listen: c.String("listen")})
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			defer srv.Close()
			w := c.App.Writer
			fmt.Fprintf(w, "fixture MCP server:   %s\n", fx.Main.URL)
			fmt.Fprintf(w, "second MCP server:    %s\n", fx.Second.URL)
			fmt.Fprintf(w, "reference host:       %s/\n", srv.HostURL)
			fmt.Fprintf(w, "sandbox proxy origin: %s\n", srv.SandboxURL)
			fmt.Fprintf(w, "Open the host and type %q. Ctrl-C stops.\n", reference.Prompt)
			<-ctx.Done()
			return nil
		},
	}
}
