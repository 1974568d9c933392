package main

import (
	"errors"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

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
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "product to log in to (" + strings.Join(hostedNames(), ", ") + ")", Required: true},
			&cli.StringFlag{Name: "out", Usage: "write the storage state to `FILE` (default: $MCPCONFORM_<HOST>_STORAGE_STATE, else <user config dir>/mcpconform/<host>.storage-state.json)"},
		}, browserFlags(false)...),
		Action: func(c *cli.Context) error {
			var bc browserConfig
			if err := loadNoArgs(c, &bc, ""); err != nil {
				return err
			}
			ctx, stop := untilSignal(c.Context)
			defer stop()
			err := weblogin.Host(ctx, c.String("host"), weblogin.Options{Out: c.String("out"), Paths: bc.paths(), Getenv: os.Getenv, Stdout: c.App.Writer})
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
