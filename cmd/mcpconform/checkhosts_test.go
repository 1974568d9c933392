package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
)

// Every host of a run is built once before anything starts: a host that
// is unknown, listed twice, or refuses what it was given is a usage error
// that says so.
func TestCheckHosts(t *testing.T) {
	none := envconfig.MapLookuper(nil)
	cases := []struct {
		name  string
		names []string
		p     hosts.Params
		want  string // "" means valid
	}{
		{"reference", []string{"reference"}, hosts.Params{}, ""},
		{"reference with defect and variation", []string{"reference"}, hosts.Params{Defects: []string{"no-visibility-guard"}, Variations: []string{"no-agent"}}, ""},
		{"unknown host", []string{"nope"}, hosts.Params{}, `unknown host "nope": choose one of `},
		{"unknown host names its variables", []string{"my-host"}, hosts.Params{}, "MCPCONFORM_MY_HOST_* variables"},
		{"twice", []string{"reference", "reference"}, hosts.Params{}, `host "reference" is listed twice`},
		{"defect elsewhere", []string{"claude"}, hosts.Params{Defects: []string{"no-visibility-guard"}}, `--host-defect applies to the reference host only, not "claude"`},
		{"defect with two hosts", []string{"reference", "claude"}, hosts.Params{Defects: []string{"no-visibility-guard"}}, `--host-defect applies to the reference host only, not "claude"`},
		{"variation elsewhere", []string{"inspector"}, hosts.Params{Variations: []string{"no-agent"}}, `--host-variation applies to the reference host only, not "inspector"`},
		{"unknown defect", []string{"reference"}, hosts.Params{Defects: []string{"nope"}}, `unknown host defect "nope"`},
		{"unknown variation", []string{"reference"}, hosts.Params{Variations: []string{"nope"}}, `unknown host variation "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.p.Environ = none
			err := checkHosts(c.names, c.p)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("checkHosts = %v, want %q", err, c.want)
			}
			if err != nil && !strings.Contains(err.Error(), "listed twice") && !errors.Is(err, hosts.ErrUsage) {
				t.Errorf("%v is not a usage error", err)
			}
		})
	}
	// The reference host is built with the defects and variations given.
	h, err := hostMaker(hosts.Params{Defects: []string{"no-visibility-guard"}, Variations: []string{"no-agent"}, Environ: none})("reference")
	if err != nil {
		t.Fatal(err)
	}
	ref, ok := h.(*reference.Host)
	if !ok || !ref.Defects()["no-visibility-guard"] || !ref.Variations()["no-agent"] || len(ref.Defects()) != 1 || len(ref.Variations()) != 1 {
		t.Fatalf("hostMaker(reference) = %T %v, want the reference host with the defect and the variation", h, h)
	}
}
