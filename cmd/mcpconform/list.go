package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/session"
	"github.com/mcpconform/mcpconform/protocol"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "print the conformance catalogue (read from the suite itself, in a headless browser)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of a table"},
			&cli.StringFlag{Name: "browser", Usage: "Chromium binary `PATH` [MCPCONFORM_BROWSER]"},
			&cli.StringFlag{Name: "node", Usage: "Node.js binary `PATH` [MCPCONFORM_NODE]"},
		},
		Action: func(c *cli.Context) error {
			var bc browserConfig
			if err := load(c, &bc); err != nil {
				return usage(err)
			}
			list, err := session.Catalogue(c.Context, bc.paths())
			if err != nil {
				return &exitError{code: ExitInfra, err: err}
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			printCatalogue(c.App.Writer, list)
			return nil
		},
	}
}

func printCatalogue(w io.Writer, list protocol.SuiteList) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCLAUSE\tEDITION\tNEEDS\tNAME")
	for _, t := range list.Tests {
		needs := make([]string, len(t.Needs))
		for i, n := range t.Needs {
			needs[i] = string(n)
		}
		n := strings.Join(needs, ",")
		if n == "" {
			n = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Clause, t.Edition, n, t.Name)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d tests (suite %s, protocol %s)\n", len(list.Tests), list.SuiteVersion, list.ProtocolVersion)
}
