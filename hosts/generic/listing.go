package generic

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// List prints `mcpconform hosts`: every registered host with its
// capabilities, then the profiles defined in l (an invalid one with the
// number of its problems and how to see them).
func List(w io.Writer, l envconfig.Lookuper) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tCAPABILITIES")
	for _, n := range hosts.Names() {
		fmt.Fprintf(tw, "%s\tbuilt-in\t%s\n", n, strings.Join(builtinCapabilities(n), ","))
	}
	profiles := Profiles(l, hosts.Names()...)
	for _, n := range profiles {
		r := Check(n, l)
		if !r.OK() {
			p := len(r.Problems())
			problems := "problems"
			if p == 1 {
				problems = "problem"
			}
			fmt.Fprintf(tw, "%s\tprofile\tinvalid, %d %s: mcpconform hosts --check %s\n", n, p, problems, n)
			continue
		}
		fmt.Fprintf(tw, "%s\tprofile\t%s\n", n, strings.Join(kindList(r.Supported, nil), ","))
	}
	tw.Flush()
	if len(profiles) == 0 {
		fmt.Fprintln(w, "no host profiles in the environment: define one with MCPCONFORM_<PROFILE>_URL and MCPCONFORM_<PROFILE>_STEPS (docs/profiles.md)")
	}
}

// PrintCheck prints `mcpconform hosts --check name`: what the profile
// consists of, or that name is a built-in host. It returns the profile's
// error (a *ProfileError naming every problem) when it is not usable.
func PrintCheck(w io.Writer, name string, l envconfig.Lookuper) error {
	if hosts.Registered(name) {
		fmt.Fprintf(w, "%s is a built-in host (a Go driver), not a profile: nothing to check\n  capabilities: %s\n", name, strings.Join(builtinCapabilities(name), ", "))
		return nil
	}
	r := Check(name, l)
	if !r.OK() {
		if len(r.Variables) > 0 {
			fmt.Fprintf(w, "profile %s: not usable\n", r.Name)
			printVariables(w, r)
		}
		return r.Err
	}
	fmt.Fprintf(w, "profile %s: OK\n", r.Name)
	printVariables(w, r)
	fmt.Fprintln(w, "  steps (e.g.: the step with example values filled in):")
	printSteps(w, r.Steps, r.Examples["STEPS"])
	for _, a := range r.Actions {
		fmt.Fprintf(w, "  %s: %s\n", a.Variable, a.What)
		if a.Variable == "OPEN_TOOL" {
			ex := r.Examples["OPEN_TOOL"]
			fmt.Fprintf(w, "    (e.g. for the suite's plain probe: {%s} = %s, {%s} = %s)\n", PhTool, ex[PhTool], PhArguments, ex[PhArguments])
		}
		printSteps(w, a.Steps, r.Examples[a.Variable])
	}
	fmt.Fprintf(w, "  supported:   %s\n", strings.Join(kindList(r.Supported, nil), ", "))
	unsupported := strings.Join(kindList(r.Unsupported, r.Why), ", ")
	if unsupported == "" {
		unsupported = "none"
	}
	fmt.Fprintf(w, "  unsupported: %s\n", unsupported)
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	return nil
}

// printSteps prints steps, each followed by its example with vars when it
// has placeholders.
func printSteps(w io.Writer, steps []Step, vars map[string]string) {
	for _, s := range steps {
		fmt.Fprintf(w, "    %d. %s\n", s.Index, s)
		if ex := Example(s, vars); ex != "" {
			fmt.Fprintf(w, "       e.g. %s\n", ex)
		}
	}
}

// kindList is ks as strings, each followed by its reason in why, if given.
func kindList(ks []protocol.Kind, why map[protocol.Kind]string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
		if why != nil {
			out[i] = fmt.Sprintf("%s (%s)", k, why[k])
		}
	}
	return out
}

// builtinCapabilities asks a freshly built (not set up) registered host
// which capabilities it has ("none" when it has none, like connect
// without an operator).
func builtinCapabilities(name string) []string {
	h, _ := hosts.New(hosts.Params{Name: name})
	if ks := hosts.Capabilities(h); len(ks) > 0 {
		return kindList(ks, nil)
	}
	return []string{"none"}
}

func printVariables(w io.Writer, r Report) {
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
