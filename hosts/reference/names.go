package reference

import (
	"fmt"
	"sort"
	"strings"
)

// parseNames validates names against known, the list of legal names of one kind
// ("defect", "variation"); listFlag names the serve flag that lists them. Blank
// names are skipped.
func parseNames(kind, listFlag string, known []string, names []string) (map[string]bool, error) {
	legal := map[string]bool{}
	for _, k := range known {
		legal[k] = true
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

// sortedNames returns the names in set in a stable order (never nil).
func sortedNames(set map[string]bool) []string {
	out := []string{}
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
