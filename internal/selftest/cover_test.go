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
	var areas, names []string
	for _, id := range ids {
		if a, _, _ := strings.Cut(id, "/"); !slices.Contains(areas, a) {
			areas = append(areas, a)
		}
	}
	sort.Strings(areas)
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
