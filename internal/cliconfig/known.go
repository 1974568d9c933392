package cliconfig

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/internal/suggest"
)

// Names lists the variables, without Prefix, that the struct cfg points
// to (or is) reads through its `env` tags, nested structs included.
func Names(cfg any) []string {
	t := reflect.TypeOf(cfg)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		switch {
		case name != "":
			out = append(out, strings.TrimSpace(name))
		case f.Type.Kind() == reflect.Struct:
			out = append(out, Names(reflect.New(f.Type).Interface())...)
		}
	}
	return out
}

// Vocabulary is every MCPCONFORM_* variable mcpconform reads, so that a
// misspelt one is an error instead of a setting silently ignored.
type Vocabulary struct {
	// Names are whole names without Prefix (TIMEOUT, REPORT_JSON).
	Names []string
	// Fields are the variables of an env profile, MCPCONFORM_<PROFILE>_<FIELD>
	// (URL, STEPS …). A profile exists when its URL is set: the other
	// fields of a name without a URL belong to no profile.
	Fields []string
	// Builtin are the hosts built into mcpconform, each with the fields
	// of MCPCONFORM_<HOST>_<FIELD> it reads (MCPCONFORM_INSPECTOR_URL
	// attaches the inspector driver). Their names are not profile names.
	Builtin []BuiltinHost
}

// BuiltinHost is a built-in host's name (as --host takes it: "mcp-ui")
// and the fields it reads from the environment (none for most).
type BuiltinHost struct {
	Name   string
	Fields []string
}

// Infix is the variable infix of a host name: "mcp-ui" → "MCP_UI".
func Infix(name string) string { return strings.ToUpper(strings.ReplaceAll(name, "-", "_")) }

// Check returns an error naming the first variable of environ (KEY=VALUE
// lines, as os.Environ gives them, or bare keys) that starts with Prefix
// and is not one mcpconform reads, with the name most likely meant:
//   - a name no command reads and no host field: the nearest known name;
//   - a profile field of a name no MCPCONFORM_<NAME>_URL defines (its
//     profile does not exist, so the field would be ignored): the nearest
//     profile that does;
//   - a variable of a built-in host's name that the host does not read
//     (MCPCONFORM_MCP_UI_URL would define a profile named like a built-in
//     host, which never happens): another name.
//
// Values are never printed: a variable may hold a secret's path or a
// token.
func (v Vocabulary) Check(environ []string) error {
	keys := map[string]bool{}
	for _, kv := range environ {
		key, _, _ := strings.Cut(kv, "=")
		if rest, ok := strings.CutPrefix(key, Prefix); ok {
			keys[rest] = true
		}
	}
	profiles := v.profiles(keys)
	type problem struct{ key, msg string }
	var problems []problem
	for rest := range keys {
		if msg := v.problem(rest, profiles); msg != "" {
			problems = append(problems, problem{Prefix + rest, msg})
		}
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].key < problems[j].key })
	more := ""
	if len(problems) > 1 {
		others := make([]string, 0, len(problems)-1)
		for _, p := range problems[1:] {
			others = append(others, p.key)
		}
		more = fmt.Sprintf(" (and %d more: %s)", len(others), strings.Join(others, ", "))
	}
	return fmt.Errorf("%s%s", problems[0].msg, more)
}

// profiles are the infixes of the env profiles keys define: every NAME of
// a NAME_URL that is not a built-in host's.
func (v Vocabulary) profiles(keys map[string]bool) []string {
	var out []string
	for k := range keys {
		if name, ok := strings.CutSuffix(k, "_URL"); ok && name != "" && v.builtin(name) == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (v Vocabulary) builtin(infix string) *BuiltinHost {
	for i, b := range v.Builtin {
		if Infix(b.Name) == infix {
			return &v.Builtin[i]
		}
	}
	return nil
}

// split is one reading of a variable as HOST_FIELD.
type split struct{ host, field string }

// splits are the readings of rest as a host followed by a field some
// host reads.
func (v Vocabulary) splits(rest string) []split {
	var out []split
	seen := map[string]bool{}
	fields := slices.Clone(v.Fields)
	for _, b := range v.Builtin {
		fields = append(fields, b.Fields...)
	}
	for _, f := range fields {
		if host, ok := strings.CutSuffix(rest, "_"+f); ok && host != "" && !seen[host] {
			seen[host] = true
			out = append(out, split{host, f})
		}
	}
	return out
}

// problem says what is wrong with MCPCONFORM_<rest>, "" when nothing is.
func (v Vocabulary) problem(rest string, profiles []string) string {
	if slices.Contains(v.Names, rest) {
		return ""
	}
	key := Prefix + rest
	var msg string
	for _, s := range v.splits(rest) {
		b := v.builtin(s.host)
		switch {
		case b != nil && slices.Contains(b.Fields, s.field):
			return ""
		case b == nil && slices.Contains(profiles, s.host) && slices.Contains(v.Fields, s.field):
			return ""
		case b != nil && msg == "":
			msg = v.reserved(key, *b, s, profiles)
		case b == nil && slices.Contains(v.Fields, s.field) && msg == "":
			msg = v.noProfile(key, s, profiles)
		}
	}
	if msg != "" {
		return msg
	}
	hint := ""
	if near := v.nearest(rest); near != "" {
		hint = fmt.Sprintf(" (did you mean %s%s?)", Prefix, near)
	}
	return fmt.Sprintf("unknown variable %s%s: mcpconform reads only the MCPCONFORM_* variables its commands' --help lists, and MCPCONFORM_<PROFILE>_<FIELD> for host profiles (docs/profiles.md); fix its name or unset it", key, hint)
}

// noProfile is the message for a profile field of a name that no
// MCPCONFORM_<NAME>_URL defines.
func (v Vocabulary) noProfile(key string, s split, profiles []string) string {
	hint := fmt.Sprintf("define the profile with %s%s_URL, or unset it", Prefix, s.host)
	if near, ok := suggest.Nearest(s.host, profiles); ok {
		hint = fmt.Sprintf("did you mean %s%s_%s? (profile %s is defined)", Prefix, near, s.field, canonical(near))
	}
	return fmt.Sprintf("%s belongs to no profile: no %s%s_URL defines a profile %s, so it would be ignored (%s)", key, Prefix, s.host, canonical(s.host), hint)
}

// reserved is the message for a variable of a built-in host's name that
// the host does not read.
func (v Vocabulary) reserved(key string, b BuiltinHost, s split, profiles []string) string {
	reads := "reads no " + Prefix + s.host + "_* variable"
	if len(b.Fields) > 0 {
		reads = "reads only " + Prefix + s.host + "_" + strings.Join(b.Fields, ", _")
	}
	hint := fmt.Sprintf("did you mean %s%s_DEV_%s, a name of your own?", Prefix, s.host, s.field)
	if near, ok := suggest.Nearest(s.host, profiles); ok {
		hint = fmt.Sprintf("did you mean %s%s_%s? (profile %s is defined)", Prefix, near, s.field, canonical(near))
	}
	names := make([]string, len(v.Builtin))
	for i, x := range v.Builtin {
		names[i] = x.Name
	}
	return fmt.Sprintf("%s: %s is a host built into mcpconform, which %s, so this defines no profile and would be ignored (%s); the names of the built-in hosts are reserved: %s",
		key, b.Name, reads, hint, strings.Join(names, ", "))
}

// canonical is a profile's name from its infix: "MY_HOST" → "my-host".
func canonical(infix string) string { return strings.ToLower(strings.ReplaceAll(infix, "_", "-")) }

// nearest is the known name (or HOST_FIELD with the variable's own host
// part) closest to rest in edit distance, if it is close enough to be a
// likely typo.
func (v Vocabulary) nearest(rest string) string {
	cands := slices.Clone(v.Names)
	// A host's field: keep everything before an underscore as the host,
	// and try each field after it.
	for i := 1; i < len(rest); i++ {
		if rest[i] != '_' {
			continue
		}
		for _, f := range v.Fields {
			cands = append(cands, rest[:i]+"_"+f)
		}
		for _, b := range v.Builtin {
			for _, f := range b.Fields {
				cands = append(cands, rest[:i]+"_"+f)
			}
		}
	}
	near, _ := suggest.Nearest(rest, cands)
	return near
}
