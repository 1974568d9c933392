package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/conform"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "print the conformance catalogue (read from the suite itself, run under Node: no browser, no host)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of a table"},
			&cli.BoolFlag{Name: "markdown", Usage: "print the Markdown page docs/catalogue.md is"},
			&cli.BoolFlag{Name: "requirements", Usage: "print the requirement matrix instead: every host-side sentence of the spec (internal/specreg) with the checks that judge it or why none does, and the coverage figures (table, or --json)"},
			&cli.StringFlag{Name: "node", Usage: "Node.js >= 20 binary `PATH` to run the suite's code [MCPCONFORM_NODE]"},
		},
		Action: func(c *cli.Context) error {
			var bc browserConfig
			if err := loadNoArgs(c, &bc, ""); err != nil {
				return err
			}
			if c.Bool("requirements") {
				if c.Bool("markdown") {
					return usage(errors.New("--requirements and --markdown conflict: the matrix is a table or --json"))
				}
				m, err := conform.Requirements()
				if err != nil {
					return &exitError{code: ExitInfra, err: err}
				}
				return conform.WriteRequirements(c.App.Writer, m, c.Bool("json"))
			}
			format := conform.CatalogueTable
			switch {
			case c.Bool("json") && c.Bool("markdown"):
				return usage(errors.New("--json and --markdown conflict: choose one format"))
			case c.Bool("json"):
				format = conform.CatalogueJSON
			case c.Bool("markdown"):
				format = conform.CatalogueMarkdown
			}
			list, err := conform.Catalogue(c.Context, bc.paths())
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			return conform.WriteCatalogue(c.App.Writer, list, format)
		},
	}
}
