package generic

import (
	"sort"
	"strings"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/envkeys"
)

// Reserved are names whose MCPCONFORM_<NAME>_* variables belong to a host
// built into mcpconform (MCPCONFORM_INSPECTOR_URL attaches the inspector
// driver to a running Inspector; MCPCONFORM_CHATGPT_URL overrides the
// chatgpt driver's page), so they never name a profile: the hosts
// registered with package hosts (hosts.Names; importing hosts/builtin
// registers every built-in). Profiles also takes the caller's list.
func Reserved() []string { return hosts.Names() }

// Keyer is a Lookuper that can list its keys. Profiles can enumerate it,
// envconfig.OsLookuper, envconfig.MapLookuper and envconfig.PrefixLookuper
// over any of those.
type Keyer = envkeys.Keyer

// Profiles lists the profiles defined in l: every NAME with a
// MCPCONFORM_<NAME>_URL variable (set, even to ""), as canonical names
// ("MY_HOST" → "my-host"), sorted, without Reserved names and the names of
// builtin. A lookuper whose keys cannot be listed yields none.
func Profiles(l envconfig.Lookuper, builtin ...string) []string {
	seen := map[string]bool{}
	for _, k := range keys(l) {
		rest, ok := strings.CutPrefix(k, Prefix)
		if !ok || !strings.HasSuffix(rest, "_URL") {
			continue
		}
		infix := strings.TrimSuffix(rest, "_URL")
		if !nameRE.MatchString(infix) || strings.ToUpper(infix) != infix {
			continue
		}
		name := Canonical(infix)
		if isReserved(name, builtin) {
			continue
		}
		seen[name] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func isReserved(name string, builtin []string) bool {
	for _, r := range append(builtin, Reserved()...) {
		if Key(r) == Key(name) {
			return true
		}
	}
	return false
}

// keys lists the keys of l where it can (envkeys.Of).
func keys(l envconfig.Lookuper) []string { return envkeys.Of(l) }
