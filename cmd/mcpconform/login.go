package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mxschmitt/playwright-go"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts"
	weblogin "github.com/mcpconform/mcpconform/internal/login"
)

// hostedNames are the hosted products `login` knows: the registered hosts
// that are a hosts.LoginProfiler.
func hostedNames() []string { return hosts.Logins() }

func loginCommand() *cli.Command {
	return &cli.Command{
		Name:  "login",
		Usage: "log in to a hosted product (" + strings.Join(hostedNames(), ", ") + ") in a browser window and save the session for `run`",
		Description: "Opens a browser window at the product's login page. Log in, check that a new chat opens, then close the window:\n" +
			"the session (a Playwright storage state) is written to --out with mode 0600. `run --host HOST` reads it\n" +
			"from MCPCONFORM_<HOST>_STORAGE_STATE. The file is a login session: keep it out of the repository; in CI\n" +
			"store it as a secret (docs/hosted.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "product to log in to (" + strings.Join(hostedNames(), ", ") + ")", Required: true},
			&cli.StringFlag{Name: "out", Usage: "write the storage state to `FILE` (default: $MCPCONFORM_<HOST>_STORAGE_STATE, else <user config dir>/mcpconform/<host>.storage-state.json)"},
			&cli.StringFlag{Name: "browser", Usage: "Chromium binary `PATH` [MCPCONFORM_BROWSER]"},
			&cli.StringFlag{Name: "node", Usage: "Node.js >= 20 binary `PATH` for the Playwright driver [MCPCONFORM_NODE]"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return usage(fmt.Errorf("login takes no arguments, got %q", c.Args().Slice()))
			}
			var bc browserConfig
			if err := load(c, &bc); err != nil {
				return usage(err)
			}
			o := loginOptions{
				host:   c.String("host"),
				out:    c.String("out"),
				paths:  bc.paths(),
				getenv: os.Getenv,
				stdout: c.App.Writer,
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := login(ctx, o)
			var ue *weblogin.UsageError
			switch {
			case err == nil:
				return nil
			case errors.As(err, &ue):
				return usage(ue.Err)
			case ctx.Err() != nil:
				return &exitError{code: ExitSIGINT, err: errors.New("interrupted: no session was saved")}
			default:
				return &exitError{code: ExitInfra, err: err}
			}
		},
	}
}

// loginOptions are the command's inputs; tests set the seams.
type loginOptions struct {
	host, out     string
	paths         bridge.Paths
	getenv        func(string) string
	stdout        io.Writer
	args          []string
	onPage        func(playwright.Page)
	snapshotEvery time.Duration
}

// login logs in to the hosted product o.host (internal/login).
func login(ctx context.Context, o loginOptions) error {
	h, _ := hosts.New(o.host)
	lp, ok := h.(hosts.LoginProfiler)
	if !ok {
		return &weblogin.UsageError{Err: fmt.Errorf("unknown host %q for login: choose one of %s", o.host, strings.Join(hostedNames(), ", "))}
	}
	p, err := lp.LoginProfile(o.getenv)
	if err != nil {
		return &weblogin.UsageError{Err: err}
	}
	return weblogin.Run(ctx, weblogin.Options{Login: p, Out: o.out, Paths: o.paths, Getenv: o.getenv, Stdout: o.stdout,
		Args: o.args, OnPage: o.onPage, SnapshotEvery: o.snapshotEvery})
}
