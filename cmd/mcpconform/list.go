package main

import (
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/conform"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "print the conformance catalogue (read from the suite itself, in a headless browser)",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of a table"},
			&cli.BoolFlag{Name: "requirements", Usage: "print the requirement matrix instead: every host-side sentence of the spec (internal/specreg) with the checks that judge it or why none does, and the coverage figures (no browser)"},
		}, browserFlags(false)...),
		Action: func(c *cli.Context) error {
			if c.Bool("requirements") {
				m, err := conform.Requirements()
				if err != nil {
					return &exitError{code: ExitInfra, err: err}
				}
				return conform.WriteRequirements(c.App.Writer, m, c.Bool("json"))
			}
			var bc browserConfig
			if err := load(c, &bc); err != nil {
				return usage(err)
			}
			list, err := conform.Catalogue(c.Context, bc.paths())
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			return conform.WriteCatalogue(c.App.Writer, list, c.Bool("json"))
		},
	}
}
