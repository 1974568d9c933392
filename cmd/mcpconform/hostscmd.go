package main

import (
	"github.com/sethvargo/go-envconfig"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/generic"
)

// hostsCommand lists the built-in hosts and the host profiles defined in
// the environment, and checks one profile (--check NAME) without starting
// anything. See docs/profiles.md.
func hostsCommand() *cli.Command { return hostsCommandWith(envconfig.OsLookuper()) }

func hostsCommandWith(l envconfig.Lookuper) *cli.Command {
	return &cli.Command{
		Name:  "hosts",
		Usage: "list the built-in hosts and the host profiles defined by MCPCONFORM_<PROFILE>_* variables (docs/profiles.md)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "check", Usage: "validate the host profile `NAME` and say what is missing or wrong (starts nothing; exit code 2 when it is not usable)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "did you mean --check "+c.Args().First()+"?"); err != nil {
				return err
			}
			// The command that checks a profile refuses what every other
			// command refuses: a misspelt variable, a field of a profile
			// that does not exist, a profile named like a built-in host.
			// The profile --check names counts as defined: a missing URL of
			// its own is the profile check's to report, by name.
			var checked []string
			if c.IsSet("check") && !hosts.Registered(c.String("check")) {
				checked = append(checked, generic.Var(c.String("check"), "URL"))
			}
			if err := checkEnviron(l, checked...); err != nil {
				return usage(err)
			}
			if c.IsSet("check") {
				if err := generic.PrintCheck(c.App.Writer, c.String("check"), l); err != nil {
					return usage(err)
				}
				return nil
			}
			generic.List(c.App.Writer, l)
			return nil
		},
	}
}
