package selftest

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts/reference"
)

// The grouped scope's runs, on the real table and catalogue, judge each
// defect on every area exactly once, in a run where it is the area's only
// actor: no other defect of the run reaches it. That is what makes the
// grouped scope see what the full scope sees of each defect alone.
func TestCoverRunsJudgeEachDefectOnEveryAreaOnceAsItsOnlyActor(t *testing.T) {
	tab, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := suite.IDs()
	if err != nil {
		t.Fatal(err)
	}
	areas := areasOf(ids)
	sort.Strings(areas)
	var names []string
	for _, d := range reference.Defects {
		names = append(names, d.Name)
	}
	runs := CoverRuns(tab, names, areas)
	reachOf := func(d string) []string {
		var out []string
		for _, g := range reach(tab, d) {
			out = append(out, strings.TrimSuffix(g, "/*"))
		}
		return out
	}
	seen := map[string][]string{}
	for _, r := range runs {
		for _, d := range r.Defects {
			for _, m := range r.Defects {
				if m != d && slices.ContainsFunc(reachOf(m), func(a string) bool { return slices.Contains(reachOf(d), a) }) {
					t.Errorf("run %v: %s and %s reach an area in common", r.Defects, d, m)
				}
			}
			if len(r.Judged[d]) == 0 {
				t.Errorf("run %v: %s is judged on nothing there", r.Defects, d)
			}
			for _, a := range r.Judged[d] {
				if slices.Contains(seen[d], a) {
					t.Errorf("%s judged on %s twice", d, a)
				}
				seen[d] = append(seen[d], a)
				for _, m := range r.Defects {
					if m != d && slices.Contains(reachOf(m), a) {
						t.Errorf("run %v: %s judged on %s, which %s reaches", r.Defects, d, a, m)
					}
				}
			}
		}
		for _, p := range ApartDefects {
			if !slices.ContainsFunc(reference.Defects, func(d reference.Defect) bool { return d.Name == p[0] }) ||
				!slices.ContainsFunc(reference.Defects, func(d reference.Defect) bool { return d.Name == p[1] }) {
				t.Errorf("ApartDefects names an unknown defect: %v", p)
			}
			if slices.Contains(r.Defects, p[0]) && slices.Contains(r.Defects, p[1]) {
				t.Errorf("run %v holds %v, which ApartDefects keeps apart", r.Defects, p)
			}
		}
		if slices.ContainsFunc(r.Defects, func(d string) bool {
			return slices.Contains(AloneDefects, d) || tab.Defects[d].BlockedAll != ""
		}) && len(r.Defects) > 1 {
			t.Errorf("run %v holds a defect that must run alone", r.Defects)
		}
	}
	for _, d := range names {
		got := slices.Clone(seen[d])
		sort.Strings(got)
		if !slices.Equal(got, areas) {
			t.Errorf("%s judged on %v, want every area of the catalogue %v", d, got, areas)
		}
	}
	t.Logf("%d defects over %d areas in %d runs (the full scope: %d)", len(names), len(areas), len(runs), len(names))
	if len(runs) >= len(names) {
		t.Errorf("%d runs for %d defects: no fewer than one each", len(runs), len(names))
	}
}

// The grouped scope's variation sets: every variation runs, the packed
// ones seen on every area of the catalogue in a packed run where no other
// member may change a verdict there (or alone), the others alone or in
// their neutral group, and the combinations; fewer runs than the full
// pass's.
func TestCoveredSetsSeeEachVariationOnEveryArea(t *testing.T) {
	ids, err := suite.IDs()
	if err != nil {
		t.Fatal(err)
	}
	areas := areasOf(ids)
	sets, packed := CoveredSets(areas)
	if len(sets) != len(packed) {
		t.Fatalf("%d sets, %d packed marks", len(sets), len(packed))
	}
	seen := map[string][]string{}
	ran := map[string]bool{}
	for i, set := range sets {
		if _, err := reference.ParseVariations(set); err != nil {
			t.Errorf("set %v: %v", set, err)
		}
		for _, v := range set {
			ran[v] = true
		}
		if !packed[i] {
			continue
		}
		for _, v := range set {
			if _, ok := VariationAreas[v]; !ok || slices.Contains(AloneVariations, v) {
				t.Errorf("packed set %v holds %s, which must run alone or in its neutral group", set, v)
			}
			for _, a := range areas {
				if !slices.ContainsFunc(set, func(o string) bool { return o != v && slices.Contains(VariationAreas[o], a) }) {
					seen[v] = append(seen[v], a)
				}
			}
		}
	}
	for i, set := range sets {
		if !packed[i] && len(set) == 1 {
			seen[set[0]] = areas
		}
	}
	for _, v := range reference.Variations {
		if !ran[v.Name] {
			t.Errorf("variation %s never runs", v.Name)
		}
		if _, ok := VariationAreas[v.Name]; !ok {
			continue
		}
		for _, a := range areas {
			if !slices.Contains(seen[v.Name], a) {
				t.Errorf("%s is never seen on %s without another variation that may change a verdict there", v.Name, a)
			}
		}
	}
	for _, c := range Combinations {
		if !slices.ContainsFunc(sets, func(s []string) bool { return slices.Equal(s, c) }) {
			t.Errorf("combination %v does not run", c)
		}
	}
	t.Logf("%d variation sets over the whole catalogue (the full pass: %d)", len(sets), len(VariationSets()))
	if len(sets) >= len(VariationSets()) {
		t.Errorf("%d sets: no fewer than the full pass's %d", len(sets), len(VariationSets()))
	}
}
