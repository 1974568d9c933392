package generic_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	_ "github.com/mcpconform/mcpconform/hosts/builtin" // registers the built-in hosts, as the binary does
	"github.com/mcpconform/mcpconform/hosts/generic"
)

// The names of the built-in hosts come from the registry: a name
// registered there (as every built-in is, in its package's init) is
// reserved and never a profile, and no list here needs to be edited.
func TestReservedIsTheRegistry(t *testing.T) {
	for _, n := range []string{"reference", "inspector", "chatgpt", "claude"} {
		if !slices.Contains(generic.Reserved(), n) {
			t.Errorf("%s is not reserved: %v", n, generic.Reserved())
		}
	}
	if !hosts.Registered("zz-generic-test") { // -count=N runs this again
		hosts.Register("zz-generic-test", func(hosts.Params) (hosts.Host, error) { return nil, nil })
	}
	if !slices.Contains(generic.Reserved(), "zz-generic-test") {
		t.Fatalf("a newly registered host is not reserved: %v", generic.Reserved())
	}
	l := envconfig.MapLookuper(map[string]string{"MCPCONFORM_ZZ_GENERIC_TEST_URL": "http://127.0.0.1:1", "MCPCONFORM_ZZ_GENERIC_TEST_STEPS": "goto {url}"})
	if got := generic.Profiles(l); len(got) != 0 {
		t.Errorf("the registered name is listed as a profile: %v", got)
	}
	if _, err := generic.Load("zz-generic-test", l); err == nil {
		t.Error("a registered name loads as a profile")
	}
}

// Env profiles answer for every name the registry does not have: a
// profile defined in the environment is built by name through hosts.New,
// a registered name never reaches the profiles, and an undefined one is
// unknown, with the profile among the choices.
func TestProfilesAreTheRegistrysFallback(t *testing.T) {
	l := envconfig.MapLookuper(map[string]string{"MCPCONFORM_MY_HOST_URL": "http://127.0.0.1:1", "MCPCONFORM_MY_HOST_STEPS": "goto {url}"})
	h, err := hosts.New(hosts.Params{Name: "my-host", Environ: l})
	if err != nil || h.Name() != "my-host" {
		t.Fatalf("New(my-host) = %v, %v", h, err)
	}
	if _, ok := generic.Unwrap(h); !ok {
		t.Errorf("New(my-host) built a %T, not a profile host", h)
	}
	if h, err := hosts.New(hosts.Params{Name: "reference", Environ: l}); err != nil || h.Name() != "reference" {
		t.Errorf("New(reference) = %v, %v", h, err)
	}
	_, err = hosts.New(hosts.Params{Name: "my-hots", Environ: l})
	if !errors.Is(err, hosts.ErrUnknown) || !strings.Contains(err.Error(), "my-host") {
		t.Errorf("New(my-hots) = %v, want unknown with my-host among the choices", err)
	}
	_, err = hosts.New(hosts.Params{Name: "my-host", Environ: l, Defects: []string{"no-visibility-guard"}})
	if !errors.Is(err, hosts.ErrUsage) {
		t.Errorf("a profile with a defect: %v, want a usage error", err)
	}
	bad := envconfig.MapLookuper(map[string]string{"MCPCONFORM_BAD_URL": "http://127.0.0.1:1"})
	if _, err := hosts.New(hosts.Params{Name: "bad", Environ: bad}); !errors.Is(err, hosts.ErrUsage) || !errors.Is(err, generic.ErrProfile) || !strings.Contains(err.Error(), `host profile "bad": `) {
		t.Errorf("an incomplete profile: %v, want a usage error naming it", err)
	}
}

// docs/profiles.md lists every reserved name (issue #28: it named two of
// eight, so a profile MCP_UI looked usable), and only those.
func TestProfilesDocListsTheReservedNames(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "profiles.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("The names of the built-in hosts are reserved: ((?:`[a-z-]+`,?\\s*(?:and\\s*)?)+)").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/profiles.md has no list \"The names of the built-in hosts are reserved: `…`\"")
	}
	var listed []string
	for _, n := range regexp.MustCompile("`([a-z-]+)`").FindAllSubmatch(m[1], -1) {
		listed = append(listed, string(n[1]))
	}
	var want []string
	for _, n := range hosts.Names() {
		if !strings.HasPrefix(n, "zz-") { // registered by tests
			want = append(want, n)
		}
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("docs/profiles.md lists the reserved names %v; the registry has %v", listed, want)
	}
}
