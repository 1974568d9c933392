package cliconfig

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
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
	// Fields are the per-host variables MCPCONFORM_<HOST>_<FIELD> (a
	// profile's URL and STEPS, a built-in host's overrides): any host name
	// followed by one of these is known.
	Fields []string
}

// Check returns an error naming the first variable of environ (KEY=VALUE
// lines, as os.Environ gives them) that starts with Prefix and is not in
// the vocabulary, with the nearest known name as a suggestion. Values are
// never printed: a variable may hold a secret's path or a token.
func (v Vocabulary) Check(environ []string) error {
	var unknown []string
	for _, kv := range environ {
		key, _, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(key, Prefix)
		if !ok || v.knows(rest) {
			continue
		}
		unknown = append(unknown, key)
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	key := unknown[0]
	hint := ""
	if near := v.nearest(strings.TrimPrefix(key, Prefix)); near != "" {
		hint = fmt.Sprintf(" (did you mean %s%s?)", Prefix, near)
	}
	more := ""
	if len(unknown) > 1 {
		more = fmt.Sprintf(" (and %d more: %s)", len(unknown)-1, strings.Join(unknown[1:], ", "))
	}
	return fmt.Errorf("unknown variable %s%s%s: mcpconform reads only the MCPCONFORM_* variables its commands' --help lists, and MCPCONFORM_<HOST>_<FIELD> for host profiles (docs/profiles.md); fix its name or unset it", key, hint, more)
}

func (v Vocabulary) knows(rest string) bool {
	if slices.Contains(v.Names, rest) {
		return true
	}
	for _, f := range v.Fields {
		if host, ok := strings.CutSuffix(rest, "_"+f); ok && host != "" {
			return true
		}
	}
	return false
}

// nearest is the known name (or HOST_FIELD with the variable's own host
// part) closest to rest in edit distance, if it is close enough to be a
// likely typo.
func (v Vocabulary) nearest(rest string) string {
	best, bestD := "", len(rest)/3+1
	try := func(cand string) {
		if d := distance(rest, cand); d < bestD {
			best, bestD = cand, d
		}
	}
	for _, n := range v.Names {
		try(n)
	}
	// A host profile's field: keep everything before the last underscore
	// run that could be the host, and try each field after it.
	for i := 1; i < len(rest); i++ {
		if rest[i] != '_' {
			continue
		}
		for _, f := range v.Fields {
			try(rest[:i] + "_" + f)
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
