package generic

import (
	"slices"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	_ "github.com/mcpconform/mcpconform/hosts/builtin" // registers the built-in hosts, as the binary does
)

// The names of the built-in hosts come from the registry: a name
// registered there (as every built-in is, in its package's init) is
// reserved and never a profile, and no list here needs to be edited.
func TestReservedIsTheRegistry(t *testing.T) {
	for _, n := range []string{"reference", "inspector", "chatgpt", "claude"} {
		if !slices.Contains(Reserved(), n) {
			t.Errorf("%s is not reserved: %v", n, Reserved())
		}
	}
	if !hosts.IsBuiltin("zz-generic-test") { // -count=N runs this again
		hosts.Register("zz-generic-test", func() hosts.Host { return nil })
	}
	if !slices.Contains(Reserved(), "zz-generic-test") {
		t.Fatalf("a newly registered host is not reserved: %v", Reserved())
	}
	l := envconfig.MapLookuper(map[string]string{"MCPCONFORM_ZZ_GENERIC_TEST_URL": "http://127.0.0.1:1", "MCPCONFORM_ZZ_GENERIC_TEST_STEPS": "goto {url}"})
	if got := Profiles(l); len(got) != 0 {
		t.Errorf("the registered name is listed as a profile: %v", got)
	}
	if _, err := Load("zz-generic-test", l); err == nil {
		t.Error("a registered name loads as a profile")
	}
}
