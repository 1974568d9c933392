package hostset

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"

	_ "github.com/mcpconform/mcpconform/hosts/builtin" // claude and inspector, as the CLI has them
	"github.com/mcpconform/mcpconform/hosts/reference"
)

func TestHostSetValidate(t *testing.T) {
	none := envconfig.MapLookuper(nil)
	cases := []struct {
		name string
		hs   Set
		want string // "" means valid
	}{
		{"reference", Set{Names: []string{"reference"}}, ""},
		{"reference with defect and variation", Set{Names: []string{"reference"}, Defects: []string{"no-visibility-guard"}, Variations: []string{"no-agent"}}, ""},
		{"unknown host", Set{Names: []string{"nope"}}, `unknown host "nope": choose one of `},
		{"unknown host names its variables", Set{Names: []string{"my-host"}}, "MCPCONFORM_MY_HOST_* variables"},
		{"twice", Set{Names: []string{"reference", "reference"}}, `host "reference" is listed twice`},
		{"defect elsewhere", Set{Names: []string{"claude"}, Defects: []string{"no-visibility-guard"}}, `--host-defect applies to the reference host only, not "claude"`},
		{"defect with two hosts", Set{Names: []string{"reference", "claude"}, Defects: []string{"no-visibility-guard"}}, `not "reference,claude"`},
		{"variation elsewhere", Set{Names: []string{"inspector"}, Variations: []string{"no-agent"}}, `--host-variation applies to the reference host only, not "inspector"`},
		{"unknown defect", Set{Names: []string{"reference"}, Defects: []string{"nope"}}, `unknown host defect "nope"`},
		{"unknown variation", Set{Names: []string{"reference"}, Variations: []string{"nope"}}, `unknown host variation "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.hs.Environ = none
			err := c.hs.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate = %v, want %q", err, c.want)
			}
		})
	}
}

func TestHostSetNew(t *testing.T) {
	hs := Set{Names: []string{"reference"}, Defects: []string{"no-visibility-guard"}, Variations: []string{"no-agent"}, Environ: envconfig.MapLookuper(nil)}
	h, err := hs.New("reference")
	if err != nil {
		t.Fatal(err)
	}
	ref, ok := h.(*reference.Host)
	if !ok || !ref.Defects()["no-visibility-guard"] || !ref.Variations()["no-agent"] || len(ref.Defects()) != 1 || len(ref.Variations()) != 1 {
		t.Fatalf("New(reference) = %T %v, want the reference host with the defect and the variation", h, h)
	}
	// Without defects or variations the registered host is built.
	if h, err := (Set{Environ: envconfig.MapLookuper(nil)}).New("reference"); err != nil || h.Name() != "reference" || len(h.(*reference.Host).Defects()) != 0 {
		t.Fatalf("New(reference) = %v, %v", h, err)
	}
	// A host profile comes from Environ; an incomplete one says what is wrong.
	if _, err := (Set{Environ: envconfig.MapLookuper(map[string]string{"MCPCONFORM_INSP_URL": "http://127.0.0.1:6274"})}).New("insp"); err == nil || !strings.Contains(err.Error(), `host profile "insp": `) {
		t.Fatalf("New(insp) with an incomplete profile: %v", err)
	}
}
