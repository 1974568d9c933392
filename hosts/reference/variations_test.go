package reference

import (
	"regexp"
	"strings"
	"testing"
)

func TestVariationsParseAndList(t *testing.T) {
	if len(Variations) < 15 {
		t.Fatalf("%d variations, want at least 15", len(Variations))
	}
	seen := map[string]bool{}
	defects := map[string]bool{}
	for _, d := range Defects {
		defects[d.Name] = true
	}
	// Each names the spec text that allows it.
	ref := regexp.MustCompile(`\b(S|draft) (L\d+|§)|MCP`)
	for _, v := range Variations {
		if seen[v.Name] {
			t.Errorf("variation %s listed twice", v.Name)
		}
		seen[v.Name] = true
		if !ref.MatchString(v.Allows) {
			t.Errorf("variation %s cites no spec reference: %q", v.Name, v.Allows)
		}
		set, err := ParseVariations([]string{" " + v.Name + " "})
		if err != nil || !set[v.Name] || len(set) != 1 {
			t.Errorf("ParseVariations(%s) = %v, %v", v.Name, set, err)
		}
	}
	set, err := ParseVariations([]string{"no-agent", "", "context-minimal", "no-agent"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.List(), ","); got != "context-minimal,no-agent" {
		t.Errorf("List() = %s", got)
	}
	if _, err := ParseVariations([]string{"context-minimal", "nope"}); err == nil || !strings.Contains(err.Error(), `unknown host variation "nope"`) || !strings.Contains(err.Error(), "no-agent") {
		t.Errorf("unknown name: %v", err)
	}
	if got := (VariationSet{}).List(); got == nil || len(got) != 0 {
		t.Errorf("empty set lists %v, want []", got)
	}
	// A host built with variations reports them (the self-test relies on it).
	h := NewWith(nil, set)
	if !h.Variations()["no-agent"] || len(h.Defects()) != 0 {
		t.Errorf("NewWith lost its variations: %v %v", h.Variations(), h.Defects())
	}
}

// The csp-stricter variation only ever restricts: every directive of the
// default policy keeps its sources or narrows them, and new ones are 'none'.
func TestStricterCSPOnlyRestricts(t *testing.T) {
	for _, c := range []*uiCSP{nil, {ResourceDomains: []string{"https://cdn.example"}, ConnectDomains: []string{"https://api.example"}}} {
		base := buildCSP(c, DefectSet{})
		strict := stricterCSP(base)
		dirs := func(p string) map[string]string {
			m := map[string]string{}
			for _, d := range strings.Split(p, "; ") {
				k, v, _ := strings.Cut(d, " ")
				m[k] = v
			}
			return m
		}
		b, s := dirs(base), dirs(strict)
		for k, v := range s {
			old, ok := b[k]
			switch {
			case !ok && v != "'none'":
				t.Errorf("%s: new directive %s %s is not 'none'", strict, k, v)
			case ok && v != old && v != "'none'":
				for _, src := range strings.Fields(v) {
					if !strings.Contains(" "+old+" ", " "+src+" ") {
						t.Errorf("%s: %s gained %s", strict, k, src)
					}
				}
			}
		}
		if c != nil && !strings.Contains(s["font-src"], "https://cdn.example") {
			t.Errorf("declared resource domain dropped from font-src: %s", strict)
		}
		for _, k := range []string{"form-action", "worker-src", "manifest-src"} {
			if s[k] != "'none'" {
				t.Errorf("%s missing from %s", k, strict)
			}
		}
	}
}
