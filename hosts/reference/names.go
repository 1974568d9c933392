package reference

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// switchable is a Defect or a Variation: a name and the sentence that
// goes with it (the requirement it breaks, the spec text that allows it).
type switchable interface {
	entry() (name, text string)
}

func (d Defect) entry() (string, string)    { return d.Name, d.Breaks }
func (v Variation) entry() (string, string) { return v.Name, v.Allows }

// parseNames validates names against known, the legal switches of one kind
// ("defect", "variation"); listFlag names the serve flag that lists them.
// Blank names are skipped.
func parseNames[T switchable](kind, listFlag string, known []T, names []string) (map[string]bool, error) {
	legal := map[string]bool{}
	for _, k := range known {
		n, _ := k.entry()
		legal[n] = true
	}
	set := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !legal[n] {
			all := sortedNames(legal)
			return nil, fmt.Errorf("unknown host %s %q: see `mcpconform serve %s` (one of %s)", kind, n, listFlag, strings.Join(all, ", "))
		}
		set[n] = true
	}
	return set, nil
}

// listTable prints known as a table under header, one switch a row with
// its sentence (serve --list-defects, --list-variations).
func listTable[T switchable](w io.Writer, header string, known []T) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, k := range known {
		n, text := k.entry()
		fmt.Fprintf(tw, "%s\t%s\n", n, text)
	}
	return tw.Flush()
}

// sortedNames returns the names in set in a stable order (never nil).
func sortedNames(set map[string]bool) []string {
	out := []string{}
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
