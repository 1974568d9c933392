package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
			if c.NArg() > 0 {
				return usage(fmt.Errorf("hosts takes no arguments, got %q (did you mean --check %s?)", c.Args().Slice(), c.Args().First()))
			}
			if c.IsSet("check") {
				return checkHost(c.App.Writer, c.String("check"), l)
			}
			listHosts(c.App.Writer, l)
			return nil
		},
	}
}

// builtinNames are the names --host accepts without a profile: the
// registered hosts, sorted.
func builtinNames() []string { return hosts.Names() }

func isBuiltin(name string) bool { return hosts.IsBuiltin(name) }

// builtinCapabilities asks a freshly built (not set up) built-in host which
// capabilities it has.
func builtinCapabilities(name string) []string {
	h, _ := hosts.New(name)
	var out []string
	for _, k := range hosts.Capabilities(h) {
		out = append(out, string(k))
	}
	return out
}

func listHosts(w io.Writer, l envconfig.Lookuper) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tCAPABILITIES")
	for _, n := range builtinNames() {
		fmt.Fprintf(tw, "%s\tbuilt-in\t%s\n", n, strings.Join(builtinCapabilities(n), ","))
	}
	profiles := generic.Profiles(l, builtinNames()...)
	for _, n := range profiles {
		r := generic.Check(n, l)
		if !r.OK() {
			p := len(r.Problems())
			fmt.Fprintf(tw, "%s\tprofile\tinvalid, %d %s: mcpconform hosts --check %s\n", n, p, plural(p, "problem", "problems"), n)
			continue
		}
		caps := make([]string, len(r.Supported))
		for i, k := range r.Supported {
			caps[i] = string(k)
		}
		fmt.Fprintf(tw, "%s\tprofile\t%s\n", n, strings.Join(caps, ","))
	}
	tw.Flush()
	if len(profiles) == 0 {
		fmt.Fprintln(w, "no host profiles in the environment: define one with MCPCONFORM_<PROFILE>_URL and MCPCONFORM_<PROFILE>_STEPS (docs/profiles.md)")
	}
}

// checkHost prints what the profile name consists of and returns a usage
// error (exit code 2) naming every problem when it is not usable.
func checkHost(w io.Writer, name string, l envconfig.Lookuper) error {
	if isBuiltin(name) {
		fmt.Fprintf(w, "%s is a built-in host (a Go driver), not a profile: nothing to check\n  capabilities: %s\n", name, strings.Join(builtinCapabilities(name), ", "))
		return nil
	}
	r := generic.Check(name, l)
	if !r.OK() {
		if len(r.Variables) > 0 {
			fmt.Fprintf(w, "profile %s: not usable\n", r.Name)
			printVariables(w, r)
		}
		return usage(r.Err)
	}
	fmt.Fprintf(w, "profile %s: OK\n", r.Name)
	printVariables(w, r)
	fmt.Fprintln(w, "  steps:")
	for _, s := range r.Steps {
		fmt.Fprintf(w, "    %d. %s\n", s.Index, s)
	}
	var sup, uns []string
	for _, k := range r.Supported {
		sup = append(sup, string(k))
	}
	for _, k := range r.Unsupported {
		uns = append(uns, fmt.Sprintf("%s (%s)", k, r.Why[k]))
	}
	fmt.Fprintf(w, "  supported:   %s\n", strings.Join(sup, ", "))
	fmt.Fprintf(w, "  unsupported: %s\n", strings.Join(uns, ", "))
	return nil
}

func printVariables(w io.Writer, r generic.Report) {
	fmt.Fprintln(w, "  variables:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range r.Variables {
		state := "unset"
		switch {
		case v.Empty:
			state = "EMPTY (counts as missing)"
		case v.Set:
			state = "set"
		}
		switch {
		case v.Required:
			state += " (required)"
		case !v.Set && v.Default != "":
			state += " (default " + v.Default + ")"
		}
		fmt.Fprintf(tw, "    %s\t%s\n", v.Name, state)
	}
	tw.Flush()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
