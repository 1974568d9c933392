package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/hosts/reference"
)

// serveConfig is serve's settings from MCPCONFORM_* variables; the flags
// win.
type serveConfig struct {
	Listen      string   `env:"LISTEN" flag:"listen"`
	Servers     []string `env:"SERVERS" flag:"server"`
	HostDefects []string `env:"HOST_DEFECTS" flag:"host-defect"`
	Variations  []string `env:"HOST_VARIATIONS" flag:"host-variation"`
	PublicURL   string   `env:"PUBLIC_URL" flag:"public-url"`
	CSPTargets  []string `env:"CSP_TARGETS" flag:"csp-target"`
}

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the fixture MCP servers and the reference host for use by hand, printing their URLs",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "address of the reference host page (default 127.0.0.1:0, loopback only) [MCPCONFORM_LISTEN]"},
			&cli.StringSliceFlag{Name: "server", Usage: "connect the reference host to this MCP server `URL` (Streamable HTTP; repeatable) instead of the fixture servers [MCPCONFORM_SERVERS]"},
			&cli.StringSliceFlag{Name: "host-defect", Usage: "make the reference host break one requirement on purpose (repeatable) [MCPCONFORM_HOST_DEFECTS]"},
			&cli.StringSliceFlag{Name: "host-variation", Usage: "make the reference host differ within the spec (repeatable) [MCPCONFORM_HOST_VARIATIONS]"},
			&cli.BoolFlag{Name: "list-variations", Usage: "print the legal host variations and the spec sentence that allows each, then exit"},
			&cli.BoolFlag{Name: "list-defects", Usage: "print the switchable host defects and the requirement each breaks, then exit"},
			&cli.StringFlag{Name: "public-url", Usage: "serve the fixture MCP servers for a hosted product reaching them at this https `URL` (behind a tunnel or proxy to --listen), print the connector URL and exit on Ctrl-C; no reference host [MCPCONFORM_PUBLIC_URL]"},
			&cli.StringSliceFlag{Name: "csp-target", Usage: "with --public-url: a public `ORIGIN` for the CSP checks (give two: the first is declared in the suite's CSP, the second is not) [MCPCONFORM_CSP_TARGETS]"},
		},
		Action: func(c *cli.Context) error {
			var sc serveConfig
			if err := load(c, &sc); err != nil {
				return usage(err)
			}
			switch {
			case c.Bool("list-defects"):
				return reference.ListDefects(c.App.Writer)
			case c.Bool("list-variations"):
				return reference.ListVariations(c.App.Writer)
			}
			ctx, stop := untilSignal(c.Context)
			defer stop()
			err := reference.Serve(ctx, reference.ServeOptions{
				Listen: sc.Listen, Servers: sc.Servers, Defects: sc.HostDefects, Variations: sc.Variations,
				PublicURL: sc.PublicURL, CSPTargets: sc.CSPTargets,
				Warnf: func(format string, args ...any) {
					fmt.Fprintf(c.App.ErrWriter, "mcpconform: warning: "+format+"\n", args...)
				},
			}, c.App.Writer)
			return usageOrInfra[reference.UsageError](err)
		},
	}
}
