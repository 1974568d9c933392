// Package envkeys lists the keys of a go-envconfig Lookuper where they
// can be listed: env profiles are found by their variables' names
// (MCPCONFORM_<PROFILE>_URL), which a Lookuper alone cannot enumerate.
package envkeys

import (
	"os"
	"reflect"
	"strings"

	"github.com/sethvargo/go-envconfig"
)

// Keyer is a Lookuper that can list its keys.
type Keyer interface {
	envconfig.Lookuper
	Keys() []string
}

var osLookuperType = reflect.TypeOf(envconfig.OsLookuper())

// Of lists the keys of l where it can: a Keyer's, an envconfig
// PrefixLookuper's (over any of these), envconfig.OsLookuper's (the
// process environment) and envconfig.MapLookuper's; nil for others.
func Of(l envconfig.Lookuper) []string {
	switch v := l.(type) {
	case nil:
		return nil
	case Keyer:
		return v.Keys()
	case interface {
		Key(string) string
		Unwrap() envconfig.Lookuper
	}: // envconfig.PrefixLookuper
		prefix := v.Key("")
		var out []string
		for _, k := range Of(v.Unwrap()) {
			if strings.HasPrefix(k, prefix) {
				out = append(out, strings.TrimPrefix(k, prefix))
			}
		}
		return out
	}
	if reflect.TypeOf(l) == osLookuperType {
		var out []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			out = append(out, k)
		}
		return out
	}
	// envconfig.MapLookuper is a map[string]string underneath.
	if rv := reflect.ValueOf(l); rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String {
		var out []string
		for _, k := range rv.MapKeys() {
			out = append(out, k.String())
		}
		return out
	}
	return nil
}
