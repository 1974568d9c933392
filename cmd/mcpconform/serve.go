package main

import (
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

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
			&cli.StringSliceFlag{Name: "server", Usage: "connect the reference host to this MCP server `URL` (Streamable HTTP; repeatable) instead of the fixture servers", EnvVars: []string{"MCPCONFORM_SERVERS"}},
			&cli.StringSliceFlag{Name: "host-defect", Usage: "make the reference host break one requirement on purpose (repeatable)", EnvVars: []string{"MCPCONFORM_HOST_DEFECTS"}},
			&cli.BoolFlag{Name: "list-defects", Usage: "print the switchable host defects and the requirement each breaks, then exit"},
		},
		Action: func(c *cli.Context) error {
			w := c.App.Writer
			if c.Bool("list-defects") {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "DEFECT\tBREAKS")
				for _, d := range reference.Defects {
					fmt.Fprintf(tw, "%s\t%s\n", d.Name, d.Breaks)
				}
				return tw.Flush()
			}
			defects, err := reference.ParseDefects(c.StringSlice("host-defect"))
			if err != nil {
				return usage(err)
			}
			for _, u := range c.StringSlice("server") {
				if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
					return usage(fmt.Errorf("--server %q is not an http(s) URL", u))
				}
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			servers := c.StringSlice("server")
			if len(servers) == 0 {
				fx, err := fixtures.Start(ctx)
				if err != nil {
					return &exitError{code: ExitInfra, err: err}
				}
				defer fx.Close()
				servers = []string{fx.Main.URL, fx.Second.URL}
				fmt.Fprintf(w, "fixture MCP server:   %s\n", fx.Main.URL)
				fmt.Fprintf(w, "second MCP server:    %s\n", fx.Second.URL)
			}
			srv, err := reference.NewServer(ctx, reference.ServerOptions{MCPServers: servers, Listen: c.String("listen"), Defects: defects})
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			defer srv.Close()
			fmt.Fprintf(w, "reference host:       %s/\n", srv.HostURL)
			fmt.Fprintf(w, "sandbox proxy origin: %s\n", srv.SandboxURL)
			fmt.Fprintf(w, "Open the host and type %q. Ctrl-C stops.\n", reference.Prompt)
			<-ctx.Done()
			return nil
		},
	}
}
