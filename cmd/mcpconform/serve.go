package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/fixtures"
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
			w := c.App.Writer
			if c.Bool("list-defects") {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "DEFECT\tBREAKS")
				for _, d := range reference.Defects {
					fmt.Fprintf(tw, "%s\t%s\n", d.Name, d.Breaks)
				}
				return tw.Flush()
			}
			if c.Bool("list-variations") {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "VARIATION\tALLOWED BY")
				for _, v := range reference.Variations {
					fmt.Fprintf(tw, "%s\t%s\n", v.Name, v.Allows)
				}
				return tw.Flush()
			}
			if sc.PublicURL != "" {
				return servePublic(c, sc)
			}
			if listen := sc.Listen; listen != "" && !isLoopbackAddr(listen) {
				fmt.Fprintf(c.App.ErrWriter, "mcpconform: warning: --listen %s is not a loopback address: the reference host is reachable from other machines\n", listen)
			}
			defects, err := reference.ParseDefects(sc.HostDefects)
			if err != nil {
				return usage(err)
			}
			variations, err := reference.ParseVariations(sc.Variations)
			if err != nil {
				return usage(err)
			}
			for _, u := range sc.Servers {
				if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
					return usage(fmt.Errorf("--server %q is not an http(s) URL", u))
				}
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			servers := sc.Servers
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
			srv, err := reference.NewServer(ctx, reference.ServerOptions{MCPServers: servers, Listen: sc.Listen, Defects: defects, Variations: variations})
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

// servePublic runs the fixture servers for registration as a connector in
// a hosted product.
func servePublic(c *cli.Context, sc serveConfig) error {
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	listen := sc.Listen
	if listen != "" && !isLoopbackAddr(listen) {
		fmt.Fprintf(c.App.ErrWriter, "mcpconform: warning: --listen %s is not a loopback address: the fixture servers are reachable from other machines\n", listen)
	}
	pub, err := fixtures.StartPublic(ctx, fixtures.PublicOptions{PublicURL: sc.PublicURL, Listen: listen, TargetOrigins: sc.CSPTargets})
	if err != nil {
		if errors.Is(err, fixtures.ErrPublicOptions) {
			return usage(err)
		}
		return &exitError{code: ExitInfra, err: err}
	}
	defer pub.Close()
	fmt.Fprint(c.App.Writer, pub.Instructions())
	<-ctx.Done()
	return nil
}

// isLoopbackAddr reports whether a listen address stays on this machine.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
