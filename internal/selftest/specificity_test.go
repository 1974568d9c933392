package selftest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// checkSpecificity is the specificity pass of TestSelfTest: under every
// legal variation (and the combinations) no check goes red; under the area
// scope the neutral variations run in their groups (NeutralGroups).
// Its runs take slots of pool (shared with the mutation pass running
// at the same time). It may run on a goroutine of its own: it reports
// with t.Error, never t.Fatal.
func checkSpecificity(t *testing.T, ctx context.Context, env hosts.Env, scope selftest.Scope, pool *selftest.Pool) {
	t.Helper()
	checkSpecificitySets(t, ctx, env, scope, nil, pool)
}

// checkSpecificitySets runs the pass over sets (nil: every set).
func checkSpecificitySets(t *testing.T, ctx context.Context, env hosts.Env, scope selftest.Scope, sets [][]string, pool *selftest.Pool) {
	t.Helper()
	start := time.Now()
	sp, err := selftest.RunSpecificity(ctx, selftest.SpecificityOptions{
		Options: selftest.Options{Env: env, Parallel: 3, Pool: pool, Scope: scope},
		Sets:    sets,
		Progress: func(r selftest.VariationRun) {
			pack := ""
			if r.PackProblems != nil {
				pack = fmt.Sprintf(" (alone: its packed run showed %v)", r.PackProblems)
			}
			t.Logf("%6.1fs variation %s: %d problem(s); %s%s%s", time.Since(start).Seconds(), r.Name(), len(r.Problems), r.Tally(), nonPass(r.Cases), pack)
		},
	})
	if err != nil {
		t.Errorf("specificity pass: %v", err)
		return
	}
	for _, r := range sp.Runs {
		if r.Err != nil {
			t.Errorf("variation %s: run failed: %v", r.Name(), r.Err)
		}
		for _, p := range r.Problems {
			t.Errorf("variation %s: %s", r.Name(), p)
		}
	}
	t.Logf("specificity: %d variations, %d false failures, in %s", len(sp.Runs), len(sp.FalseFail), time.Since(start).Round(time.Second))
}

// The specificity pass on canned runs: every variation set runs the whole
// catalogue (no selection), FAIL, ERROR and TIMEOUT are false failures
// naming variation and check, SKIP and PASS are not (but a SKIP under a
// variation that only slows the host is), and a variation that did not
// show in hostCapabilities is a problem.
func TestSpecificityCatchesFalseFailures(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		vs := h.(*reference.Host).Variations()
		name := strings.Join(vs.List(), "+")
		mu.Lock()
		seen[name] = true
		mu.Unlock()
		if len(o.Selection.Globs) > 0 {
			t.Errorf("%s ran a selection %v, want the whole catalogue", name, o.Selection.Globs)
		}
		caps := map[string]any{"serverTools": map[string]any{}, "message": map[string]any{}}
		st := map[string]protocol.Status{"a/one": protocol.StatusPass, "a/two": protocol.StatusSkip, "a/three": protocol.StatusPass}
		switch name {
		case "no-agent":
			st["a/one"] = protocol.StatusFail
			st["a/three"] = protocol.StatusTimeout
		case "context-minimal":
			st["a/three"] = protocol.StatusError
			st["a/two"] = protocol.StatusBlocked // a legal host misses no behaviour
		case "no-capability-message":
			// the variation did nothing: message still advertised
		default:
			delete(caps, "message")
		}
		b, _ := json.Marshal(caps)
		ctxJSON := `{"theme":"light"}`
		hr := report.HostRun{Capabilities: b, Context: json.RawMessage(ctxJSON)}
		for _, id := range []string{"a/one", "a/two", "a/three"} {
			hr.Cases = append(hr.Cases, report.Case{TestMeta: protocol.TestMeta{ID: id, Clause: protocol.ClauseMust}, Status: st[id], Message: "m"})
		}
		return hr, nil
	}
	sets := [][]string{{"no-agent"}, {"context-minimal"}, {"no-capability-message"}, {"tool-call-approval"}, {"context-minimal", "no-agent"}, {"slow-host"}, {"csp-meta", "errors-32000"}}
	sp, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake}, Sets: sets, Catalogue: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sp.OK() {
		t.Fatal("false failures reported OK")
	}
	want := []string{
		"a/one under no-agent: FAIL m",
		"a/three under context-minimal: ERROR m",
		"a/three under no-agent: TIMEOUT m",
		"a/two under context-minimal: BLOCKED m",
	}
	if got := strings.Join(sp.FalseFail, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("false failures:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if len(seen) != len(sets) || !seen["context-minimal+no-agent"] || !seen["csp-meta+errors-32000"] {
		t.Errorf("ran %v, want every set", seen)
	}
	for _, r := range sp.Runs {
		joined := strings.Join(r.Problems, "\n")
		switch r.Name() {
		case "no-capability-message":
			if !strings.Contains(joined, "hostCapabilities still has message") {
				t.Errorf("a variation without effect went unnoticed: %q", joined)
			}
		case "slow-host":
			// Only slower: the SKIP of a/two (PASS on the plain host) is a
			// verdict that depends on speed, though not red.
			if !strings.Contains(joined, "a/two went SKIP on a host that is only slower") {
				t.Errorf("a SKIP under slow-host went unnoticed: %q", joined)
			}
		case "csp-meta+errors-32000":
			// Both listed in NeutralGroups: the SKIP of a/two is a
			// verdict one of them changed, though not red.
			if !strings.Contains(joined, "a/two went SKIP under variations listed as leaving every check PASS") || !strings.Contains(joined, "MCPCONFORM_VARIATIONS=csp-meta,errors-32000") {
				t.Errorf("a SKIP under neutral variations went unnoticed: %q", joined)
			}
		case "tool-call-approval":
			if joined != "" {
				t.Errorf("clean run has problems: %q", joined)
			}
			if r.Tally() != "2 PASS, 1 SKIP" {
				t.Errorf("tally %q", r.Tally())
			}
		}
	}
	// A run that reports fewer checks than the catalogue proves less.
	short, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake}, Sets: [][]string{{"tool-call-approval"}}, Catalogue: 4})
	if err != nil || short.OK() || !strings.Contains(strings.Join(short.Runs[0].Problems, ""), "ran 3 checks, the catalogue has 4") {
		t.Errorf("a short run passed: %v %+v", err, short.Runs)
	}
	if _, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake}, Sets: [][]string{{"nope"}}}); err == nil {
		t.Error("an unknown variation was accepted")
	}
	// The default sets: every variation alone, then the combinations.
	if n := len(selftest.VariationSets()); n != len(reference.Variations)+len(selftest.Combinations) || n < 15 {
		t.Errorf("%d default variation sets", n)
	}
}

// The area scope's sets: every variation runs exactly once, alone or in
// one neutral group (the combinations run in the full pass only); the groups hold only known
// variations, and none that changes how the suite reaches the host.
func TestGroupedSetsRunEveryVariationOnce(t *testing.T) {
	known := map[string]bool{}
	for _, v := range reference.Variations {
		known[v.Name] = true
	}
	sets := selftest.GroupedSets()
	count := map[string]int{}
	for _, set := range sets {
		for _, v := range set {
			count[v]++
		}
	}
	for v := range known {
		if count[v] != 1 {
			t.Errorf("variation %s runs %d times in the area scope, want once", v, count[v])
		}
	}
	for v := range count {
		if !known[v] {
			t.Errorf("NeutralGroups names unknown variation %q", v)
		}
	}
	for _, g := range selftest.NeutralGroups {
		if _, err := reference.ParseVariations(g); err != nil {
			t.Error(err)
		}
		for _, v := range g {
			if selftest.SpeedOnly[v] || v == "no-agent" || v == "no-open-tool" || v == "rerender-once" {
				t.Errorf("%s changes how the suite reaches the host and must run alone, not in %v", v, g)
			}
		}
	}
	if n := len(sets); n >= len(selftest.VariationSets()) {
		t.Errorf("the grouped sets (%d) are no fewer than every variation alone", n)
	}
	// The full scope runs each alone (VariationSets); the area scope groups.
	var ran [][]string
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		ran = append(ran, h.(*reference.Host).Variations().List())
		return report.HostRun{}, nil
	}
	if _, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake, Parallel: 1, Scope: selftest.ScopeArea}, Catalogue: 1}); err != nil {
		t.Fatal(err)
	}
	// Every grouped set ran (these fake runs report nothing, so each
	// packed set then ran again variation by variation, which adds runs).
	for _, set := range sets {
		want := slices.Sorted(slices.Values(set))
		if !slices.ContainsFunc(ran, func(r []string) bool { return slices.Equal(slices.Sorted(slices.Values(r)), want) }) {
			t.Errorf("the area scope did not run the set %v", set)
		}
	}
	// AloneVariations: over their areas, in a set of their own.
	for _, v := range selftest.AloneVariations {
		if _, ok := selftest.VariationAreas[v]; !ok {
			t.Errorf("AloneVariations names %s, which has no VariationAreas", v)
		}
		if !slices.ContainsFunc(sets, func(s []string) bool { return slices.Equal(s, []string{v}) }) {
			t.Errorf("%s is packed with others: %v", v, sets)
		}
	}
	// Packed sets: variations of VariationAreas only, no area shared.
	for _, set := range sets {
		if len(set) < 2 || slices.ContainsFunc(selftest.NeutralGroups, func(g []string) bool { return slices.Equal(g, set) }) {
			continue
		}
		seen := map[string]string{}
		for _, v := range set {
			as, ok := selftest.VariationAreas[v]
			if !ok {
				t.Errorf("packed set %v holds %s, which has no VariationAreas", set, v)
			}
			for _, a := range as {
				if seen[a] != "" {
					t.Errorf("packed set %v: %s and %s share area %s", set, seen[a], v, a)
				}
				seen[a] = v
			}
		}
	}
}

// nonPass lists the checks of a run that did not PASS, for the log: what a
// variation changes (selftest.VariationAreas is kept to it).
func nonPass(cases []report.Case) string {
	var ids []string
	for _, c := range cases {
		if c.Status != protocol.StatusPass {
			ids = append(ids, c.ID+" "+string(c.Status))
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return "; not PASS: " + strings.Join(ids, ", ")
}

// A variation listed in VariationAreas runs over its areas only in the
// area scope (and must report every check of them), and the full pass
// holds it to them: a check outside them that does not PASS is a problem
// naming the variation; one inside them is not.
func TestVariationAreasScopeAndAreHeldToThem(t *testing.T) {
	saved := selftest.VariationAreas
	defer func() { selftest.VariationAreas = saved }()
	selftest.VariationAreas = map[string][]string{"open-link-refused": {"links"}}
	ids := []string{"links/open-link", "links/refused", "other/one"}
	var mu sync.Mutex
	globs := map[string][]string{}
	status := map[string]protocol.Status{"links/refused": protocol.StatusSkip}
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		name := strings.Join(h.(*reference.Host).Variations().List(), "+")
		mu.Lock()
		globs[name] = o.Selection.Globs
		mu.Unlock()
		hr := report.HostRun{Capabilities: json.RawMessage(`{"serverTools":{}}`), Context: json.RawMessage(`{"theme":"light"}`)}
		for _, id := range ids {
			area, _, _ := strings.Cut(id, "/")
			if len(o.Selection.Globs) > 0 && !slices.Contains(o.Selection.Globs, area+"/*") {
				continue
			}
			st := status[id]
			if st == "" {
				st = protocol.StatusPass
			}
			hr.Cases = append(hr.Cases, report.Case{TestMeta: protocol.TestMeta{ID: id}, Status: st})
		}
		return hr, nil
	}
	sets := [][]string{{"open-link-refused"}, {"request-teardown-ignored"}}
	run := func(scope selftest.Scope) selftest.Specificity {
		t.Helper()
		sp, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake, Scope: scope}, Sets: sets, Catalogue: len(ids), IDs: ids})
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	sp := run(selftest.ScopeArea)
	if g := globs["open-link-refused"]; len(g) != 1 || g[0] != "links/*" {
		t.Errorf("area scope: open-link-refused ran %v, want [links/*]", g)
	}
	if g := globs["request-teardown-ignored"]; len(g) != 0 {
		t.Errorf("area scope: an unlisted variation ran %v, want the whole catalogue", g)
	}
	if !sp.OK() {
		t.Errorf("area scope: %+v", sp.Runs)
	}
	// The full pass: a SKIP inside the areas is fine, one outside is not.
	if sp := run(selftest.ScopeFull); !sp.OK() {
		t.Errorf("full scope, SKIP inside the areas: %+v", sp.Runs)
	}
	status["other/one"] = protocol.StatusSkip
	sp = run(selftest.ScopeFull)
	var got string
	for _, r := range sp.Runs {
		if r.Name() == "open-link-refused" {
			got = strings.Join(r.Problems, "\n")
		}
	}
	if !strings.Contains(got, "not PASS outside the areas selftest.VariationAreas gives open-link-refused (links)") || !strings.Contains(got, "other/one SKIP") {
		t.Errorf("a verdict changed outside the listed areas went unnoticed: %q", got)
	}

	// Packed: two variations over their own areas in one host; a red in
	// the packed run sends each to run alone, and what is reported is
	// their own runs, each saying that the packed run disagrees with it
	// (a red only together is an interaction or a fault of ours, which the
	// runs alone must not hide).
	selftest.VariationAreas["download-refused"] = []string{"other"}
	delete(status, "other/one")
	status["links/open-link"] = protocol.StatusFail
	redOnlyTogether := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		vs := h.(*reference.Host).Variations().List()
		hr, err := fake(context.Background(), h, o)
		for i := range hr.Cases {
			if hr.Cases[i].Status == protocol.StatusFail && len(vs) < 2 {
				hr.Cases[i].Status = protocol.StatusPass
			}
		}
		return hr, err
	}
	sp, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: redOnlyTogether, Scope: selftest.ScopeArea}, Sets: [][]string{{"open-link-refused", "download-refused"}}, Catalogue: len(ids), IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range sp.Runs {
		names = append(names, r.Name())
	}
	if !slices.Equal(names, []string{"open-link-refused", "download-refused"}) || len(sp.FalseFail) > 0 || sp.OK() {
		t.Errorf("a packed set with a red: runs %v (want each variation alone), false failures %v (want none), OK %v (want false: the runs disagree)", names, sp.FalseFail, sp.OK())
	}
	for _, r := range sp.Runs {
		if len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "the runs disagree") || !strings.Contains(r.Problems[0], "links/open-link") {
			t.Errorf("variation %s: problems %v, want one: the packed run's links/open-link, which it does not show alone", r.Name(), r.Problems)
		}
	}
	if g := globs["download-refused+open-link-refused"]; !slices.Equal(g, []string{"links/*", "other/*"}) && !slices.Equal(g, []string{"other/*", "links/*"}) {
		t.Errorf("the packed set ran %v, want both areas", g)
	}
}

// Every variation is in exactly one of NeutralGroups, VariationAreas and
// WholeCatalogue; one VariationAreas lists changes nothing of how the
// suite reaches the host, and its areas are areas of the catalogue.
func TestVariationAreasNameKnownVariationsAndAreas(t *testing.T) {
	for _, v := range reference.Variations {
		n := 0
		if slices.ContainsFunc(selftest.NeutralGroups, func(g []string) bool { return slices.Contains(g, v.Name) }) {
			n++
		}
		if _, ok := selftest.VariationAreas[v.Name]; ok {
			n++
		}
		if slices.Contains(selftest.WholeCatalogue, v.Name) {
			n++
		}
		if n != 1 {
			t.Errorf("variation %s is in %d of NeutralGroups, VariationAreas and WholeCatalogue, want exactly 1", v.Name, n)
		}
	}
	ids, err := suite.IDs()
	if err != nil {
		t.Skip(err)
	}
	areas := map[string]bool{}
	for _, id := range ids {
		a, _, _ := strings.Cut(id, "/")
		areas[a] = true
	}
	for v, as := range selftest.VariationAreas {
		if _, err := reference.ParseVariations([]string{v}); err != nil {
			t.Error(err)
		}
		if slices.ContainsFunc(selftest.NeutralGroups, func(g []string) bool { return slices.Contains(g, v) }) {
			t.Errorf("%s is in a neutral group and in VariationAreas", v)
		}
		if selftest.SpeedOnly[v] || slices.Contains(selftest.WholeCatalogue, v) {
			t.Errorf("%s changes how the suite reaches the host: it runs the whole catalogue", v)
		}
		if len(as) == 0 {
			t.Errorf("%s lists no area", v)
		}
		for _, a := range as {
			if !areas[a] {
				t.Errorf("%s: no check of the catalogue is in area %q", v, a)
			}
		}
	}
}

// The grouped scope runs CoveredSets over the whole catalogue; a packed set
// with a problem runs again variation by variation. These fake runs
// report no hostCapabilities, a problem of every run.
func TestCoveredSetsRerunPacksAlone(t *testing.T) {
	_, sets, packed := coveredSets(t)
	var mu sync.Mutex
	var ran []string
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		if len(o.Selection.Globs) > 0 {
			t.Errorf("a grouped-scope variation run selected %v: want the whole catalogue", o.Selection.Globs)
		}
		mu.Lock()
		ran = append(ran, strings.Join(h.(*reference.Host).Variations().List(), "+"))
		mu.Unlock()
		return report.HostRun{}, nil
	}
	if _, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake, Parallel: 2, Scope: selftest.ScopeGrouped}, Catalogue: 1}); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range ran {
		count[r]++
	}
	for i, set := range sets {
		name := strings.Join(slices.Sorted(slices.Values(set)), "+")
		if count[name] == 0 {
			t.Errorf("set %s did not run", name)
		}
		for _, v := range set {
			if alone := count[v]; packed[i] && alone == 0 {
				t.Errorf("packed set %s had a problem, and %s did not run again alone", name, v)
			}
		}
	}
	if want := len(sets); len(ran) <= want {
		t.Errorf("%d runs for %d sets: no packed set ran again variation by variation", len(ran), want)
	}
}

// A packed set whose run shows a false failure that none of its members
// shows alone: each member's report says the runs disagree, and the pass
// is not OK (the runs alone must not hide a fault of ours or an
// interaction).
func TestPackedRunThatDisagreesWithItsMembersAlone(t *testing.T) {
	ids, sets, packed := coveredSets(t)
	// A packed set whose members the canned run below satisfies alone: none
	// that demands a hostContext field or a SKIP of its own.
	demanding := []string{"display-modes-absent", "display-modes-inline-only", "payload-extra-keys", "download-toast-unconfirmed", "download-asks-in-window", "message-consent-unanswered", "tool-call-approval-unanswered"}
	var pack []string
	for i, set := range sets {
		if packed[i] && !slices.ContainsFunc(set, func(v string) bool { return slices.Contains(demanding, v) }) {
			pack = set
			break
		}
	}
	if pack == nil {
		t.Fatal("CoveredSets packed no set")
	}
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		vs := h.(*reference.Host).Variations().List()
		hr := report.HostRun{Capabilities: []byte(`{"serverTools":{}}`), Context: []byte(`{"theme":"light"}`)}
		for i, id := range ids {
			st := protocol.StatusPass
			if i == 0 && len(vs) > 1 && slices.Equal(slices.Sorted(slices.Values(vs)), slices.Sorted(slices.Values(pack))) {
				st = protocol.StatusFail
			}
			hr.Cases = append(hr.Cases, report.Case{TestMeta: protocol.TestMeta{ID: id, Clause: protocol.ClauseMust}, Status: st})
		}
		return hr, nil
	}
	sp, err := selftest.RunSpecificity(context.Background(), selftest.SpecificityOptions{Options: selftest.Options{Run: fake, Parallel: 2, Scope: selftest.ScopeGrouped}})
	if err != nil {
		t.Fatal(err)
	}
	if sp.OK() {
		t.Error("a packed run that disagrees with its members alone left the pass OK")
	}
	for _, r := range sp.Runs {
		// Its run alone after the pack is the one with the pack's problem
		// (other packs the canned runs do not satisfy run again too).
		member := slices.ContainsFunc(r.PackProblems, func(p string) bool { return strings.HasPrefix(p, ids[0]+" went FAIL") })
		if !member && !slices.Contains(pack, r.Name()) {
			continue
		}
		if member && (len(r.Variations) != 1 || !slices.Contains(pack, r.Variations[0])) {
			t.Errorf("variation %s ran again alone after the pack %v, which it is not in", r.Name(), pack)
		}
		disagree := slices.ContainsFunc(r.Problems, func(p string) bool { return strings.Contains(p, "the runs disagree") && strings.Contains(p, ids[0]) })
		if disagree != member || len(r.Problems) > 1 {
			t.Errorf("variation %s: problems %v; want one saying the runs disagree on %s for the members of %v only", r.Name(), r.Problems, ids[0], pack)
		}
	}
}

// coveredSets is the catalogue's check ids and selftest.CoveredSets over
// its areas.
func coveredSets(t *testing.T) (ids []string, sets [][]string, packed []bool) {
	t.Helper()
	ids, err := suite.IDs()
	if err != nil {
		t.Fatal(err)
	}
	var areas []string
	for _, id := range ids {
		if a, _, _ := strings.Cut(id, "/"); !slices.Contains(areas, a) {
			areas = append(areas, a)
		}
	}
	sets, packed = selftest.CoveredSets(areas)
	return ids, sets, packed
}
