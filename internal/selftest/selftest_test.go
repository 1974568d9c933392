package selftest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

func TestTableCoversEveryDefectAndCheckHasADefect(t *testing.T) {
	tab, err := selftest.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range reference.Defects {
		e, ok := tab.Defects[d.Name]
		if !ok || len(e.Red) == 0 {
			t.Errorf("defect %s turns no check red in table.json", d.Name)
		}
		// A dependent is blocked by the behaviour the defect breaks: its
		// blocker must be a check the defect is meant to turn red.
		for dep, b := range e.Blocked {
			if !slices.Contains(e.Red, b) {
				t.Errorf("defect %s: %s is to be BLOCKED by %s, which the defect is not meant to turn red", d.Name, dep, b)
			}
			if slices.Contains(e.Red, dep) {
				t.Errorf("defect %s: %s is both meant red and blocked", d.Name, dep)
			}
		}
		for c := range e.Cascade {
			if slices.Contains(e.Red, c) {
				t.Errorf("defect %s: %s is both meant red and a cascade", d.Name, c)
			}
		}
	}
	known := map[string]bool{}
	for _, d := range reference.Defects {
		known[d.Name] = true
	}
	for d := range tab.Defects {
		if !known[d] {
			t.Errorf("table.json names defect %s, which the reference host does not have", d)
		}
	}
}

// The scoring itself, on canned runs: a false failure, an unproven check
// and a check missing from the table are all caught.
func TestScoringCatchesFalseFailuresAndUnproven(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{
		"ping-unanswered":  {Red: []string{"a/one"}, Blocked: map[string]string{"a/four": "a/one"}},
		"hostinfo-missing": {Red: []string{"a/two"}},
		"no-ui-extension":  {Red: []string{"a/four"}, Cascade: map[string]string{"a/one": "a/four"}},
	}}
	meta := func(id string) protocol.TestMeta { return protocol.TestMeta{ID: id, Clause: protocol.ClauseMust} }
	fake := func(_ context.Context, h hosts.Host, _ runner.Options) (report.HostRun, error) {
		st := map[string]protocol.Status{"a/one": "PASS", "a/two": "PASS", "a/three": "PASS", "a/four": "PASS"}
		var blockedBy []string
		switch fmt.Sprint(h.(*reference.Host).Defects().List()) {
		case "[ping-unanswered]":
			st["a/one"] = "FAIL"
			st["a/three"] = "FAIL" // not in the table for a/three: false failure
			st["a/four"], blockedBy = "BLOCKED", []string{"a/one"}
		case "[hostinfo-missing]":
			// a/two should go red here but does not: unproven
		case "[no-ui-extension]":
			st["a/four"] = "FAIL"
			st["a/one"] = "FAIL" // a declared cascade: tolerated, imprecise
		}
		var hr report.HostRun
		for _, id := range []string{"a/one", "a/two", "a/three", "a/four"} {
			c := report.Case{TestMeta: meta(id), Status: st[id]}
			if st[id] == "BLOCKED" {
				c.BlockedBy = blockedBy
			}
			hr.Cases = append(hr.Cases, c)
		}
		return hr, nil
	}
	s, err := selftest.Run(context.Background(), tab, selftest.Options{Run: fake})
	if err != nil {
		t.Fatal(err)
	}
	if s.OK() {
		t.Fatal("a self-test with a false failure and an unproven check reported OK")
	}
	if strings.Join(s.Proven, ",") != "a/one,a/four" || !strings.Contains(strings.Join(s.Unproven, ","), "a/two") {
		t.Errorf("proven %v unproven %v", s.Proven, s.Unproven)
	}
	if len(s.FalseFail) != 1 || !strings.HasPrefix(s.FalseFail[0], "a/three under ping-unanswered") {
		t.Errorf("false failures %v", s.FalseFail)
	}
	if strings.Join(s.Missing, ",") != "a/three" {
		t.Errorf("missing %v", s.Missing)
	}
	if got := s.Score(); got < 0.49 || got > 0.51 {
		t.Errorf("score %v, want 2/4", got)
	}
	// Precision: the false failure and the declared cascade both count.
	if fmt.Sprint(s.Extra) != "map[no-ui-extension:[a/one] ping-unanswered:[a/three]]" {
		t.Errorf("extra reds %v", s.Extra)
	}
	for _, r := range s.Runs {
		if r.Defect == "no-ui-extension" && len(r.Problems) > 0 {
			t.Errorf("a declared cascade is a problem: %v", r.Problems)
		}
	}
}

// A dependent must end BLOCKED by the check the table names, or PASS: red,
// or blocked by another check, is a problem.
func TestBlockedDependents(t *testing.T) {
	e := selftest.Expect{Red: []string{"a/base"}, Blocked: map[string]string{"a/dep": "a/base"}}
	for _, c := range []struct {
		status    protocol.Status
		blockedBy []string
		problem   string
	}{
		{protocol.StatusBlocked, []string{"a/base"}, ""},
		{protocol.StatusPass, nil, ""},
		{protocol.StatusFail, nil, "a/dep went red, want BLOCKED by a/base"},
		{protocol.StatusBlocked, []string{"a/other"}, "a/dep blocked by [a/other], want by a/base"},
		{protocol.StatusSkip, nil, "a/dep skipped"},
	} {
		cases := []report.Case{
			{TestMeta: protocol.TestMeta{ID: "a/base"}, Status: protocol.StatusFail},
			{TestMeta: protocol.TestMeta{ID: "a/dep"}, Status: c.status, BlockedBy: c.blockedBy},
			{TestMeta: protocol.TestMeta{ID: "a/else"}, Status: protocol.StatusBlocked, BlockedBy: []string{"a/base"}},
		}
		got := strings.Join(selftest.Problems(e, cases), "\n")
		if !strings.Contains(got, "a/else blocked without being expected to") {
			t.Errorf("%s: a check blocked where the table allows none is no problem: %q", c.status, got)
		}
		if (c.problem == "") != !strings.Contains(got, "a/dep") || (c.problem != "" && !strings.Contains(got, c.problem)) {
			t.Errorf("dependent %s %v: problems %q, want %q", c.status, c.blockedBy, got, c.problem)
		}
	}
}

// A defect of the handshake (blockedAll): every other check may end
// BLOCKED by the one named, and only by it; red is still a problem, and
// the blocker's own area is what the area scope runs.
func TestBlockedAllAllowsEveryOtherCheckBlockedByTheOne(t *testing.T) {
	e := selftest.Expect{Red: []string{"a/base"}, BlockedAll: "a/base"}
	cases := []report.Case{
		{TestMeta: protocol.TestMeta{ID: "a/base"}, Status: protocol.StatusFail},
		{TestMeta: protocol.TestMeta{ID: "a/x"}, Status: protocol.StatusBlocked, BlockedBy: []string{"a/base"}},
		{TestMeta: protocol.TestMeta{ID: "b/y"}, Status: protocol.StatusBlocked, BlockedBy: []string{"a/base"}},
		{TestMeta: protocol.TestMeta{ID: "b/z"}, Status: protocol.StatusPass},
	}
	if got := selftest.Problems(e, cases); len(got) != 0 {
		t.Errorf("checks blocked by the handshake's judge: problems %q, want none", got)
	}
	cases = append(cases,
		report.Case{TestMeta: protocol.TestMeta{ID: "b/other"}, Status: protocol.StatusBlocked, BlockedBy: []string{"b/y"}},
		report.Case{TestMeta: protocol.TestMeta{ID: "b/red"}, Status: protocol.StatusFail, Message: "m"})
	got := strings.Join(selftest.Problems(e, cases), "\n")
	if !strings.Contains(got, "b/other blocked by [b/y], want by a/base") || !strings.Contains(got, "b/red went red, want BLOCKED by a/base") {
		t.Errorf("problems %q: want b/other blocked by the wrong check and b/red red", got)
	}
	cases[0].Status = protocol.StatusPass
	if got := strings.Join(selftest.Problems(e, cases[:1]), "\n"); !strings.Contains(got, "a/base: PASS, want FAIL or TIMEOUT") {
		t.Errorf("the judge PASSing is no problem: %q", got)
	}
}

// Under ScopeArea each defect run selects the areas of the checks the table
// expects it to turn red, and nothing else; the defect-free run is whole.
func TestAreaScopeSelectsTheDefectsAreas(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{
		"ping-unanswered":  {Red: []string{"lifecycle/one"}, Blocked: map[string]string{"errors/two": "lifecycle/one"}},
		"hostinfo-missing": {Red: []string{"context/three"}},
	}}
	var mu sync.Mutex
	got := map[string]string{}
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		mu.Lock()
		got[fmt.Sprint(h.(*reference.Host).Defects().List())] = strings.Join(o.Selection.Globs, ",")
		mu.Unlock()
		return report.HostRun{}, nil
	}
	if _, err := selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeArea}); err != nil {
		t.Fatal(err)
	}
	if got["[]"] != "" {
		t.Errorf("the defect-free run selected %q, want the whole suite", got["[]"])
	}
	// Both have session areas (selftest.SessionAreas): each runs alone.
	if got["[ping-unanswered]"] != "errors/*,lifecycle/*" || got["[hostinfo-missing]"] != "context/*" {
		t.Errorf("selections %v", got)
	}
	if _, err := selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: "some"}); err == nil {
		t.Error("an unknown scope was accepted")
	}
}

// The area scope packs defects that share no area into one run and judges
// each on its own areas' checks; when any member's judgement shows a
// problem, every member of that group runs again alone, and what is
// reported is each one's own run.
func TestGroupedDefectsJudgedOnTheirAreasAndRerunAlone(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{
		"ping-unanswered":  {Red: []string{"tools/one"}},
		"hostinfo-missing": {Red: []string{"downloads/three"}},
		"no-ui-extension":  {Red: []string{"tools/two"}},
		// A session area: alone, whatever it shares.
		"message-dropped": {Red: []string{"lifecycle/four"}},
	}}
	// (The session-area defect first: a group it opened takes no one.)
	groups := selftest.DefectGroups(tab, []string{"message-dropped", "ping-unanswered", "hostinfo-missing", "no-ui-extension"})
	for _, g := range groups {
		if slices.Contains(g, "ping-unanswered") && slices.Contains(g, "no-ui-extension") {
			t.Errorf("two tools defects in one group: %v", groups)
		}
		if slices.Contains(g, "message-dropped") && len(g) > 1 {
			t.Errorf("a defect of a session area in a group: %v", groups)
		}
	}
	if len(groups) != 3 {
		t.Errorf("groups %v, want 3 (the tools defects apart, downloads with one of them, lifecycle alone)", groups)
	}
	// The host breaks what its defects break (and, once interact is set,
	// two of them together break a third check: a problem of the group,
	// not of either defect).
	var mu sync.Mutex
	var ran []string
	interact := false
	fake := func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		ds := h.(*reference.Host).Defects()
		mu.Lock()
		ran = append(ran, fmt.Sprint(ds.List()))
		mu.Unlock()
		red := map[string]bool{}
		for _, d := range ds.List() {
			for _, id := range tab.Defects[d].Red {
				red[id] = true
			}
		}
		// Two defects that, together, break a third check.
		if interact && slices.Contains(ds.List(), "hostinfo-missing") && slices.Contains(ds.List(), "ping-unanswered") {
			red["tools/two"] = true
		}
		var hr report.HostRun
		for _, id := range []string{"tools/one", "tools/two", "downloads/three", "lifecycle/four"} {
			area, _, _ := strings.Cut(id, "/")
			if len(o.Selection.Globs) > 0 && !slices.Contains(o.Selection.Globs, area+"/*") {
				continue
			}
			st := protocol.StatusPass
			if red[id] {
				st = protocol.StatusFail
			}
			hr.Cases = append(hr.Cases, report.Case{TestMeta: protocol.TestMeta{ID: id, Clause: protocol.ClauseMust}, Status: st})
		}
		return hr, nil
	}
	s, err := selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeArea, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Unproven) > 0 || len(s.FalseFail) > 0 {
		t.Errorf("clean grouped runs: unproven %v, false failures %v", s.Unproven, s.FalseFail)
	}
	// (Run runs every defect of the reference host; those the table
	// names no check for run alone over everything, and are left out here.)
	mine := func(r string) bool {
		return strings.Contains(r, "hostinfo-missing") || strings.Contains(r, "ping-unanswered") || strings.Contains(r, "no-ui-extension")
	}
	for _, r := range s.Runs {
		if !mine(r.Defect) {
			continue
		}
		for _, c := range r.Cases {
			area, _, _ := strings.Cut(c.ID, "/")
			if !slices.ContainsFunc(tab.Defects[r.Defect].Red, func(id string) bool { return strings.HasPrefix(id, area+"/") }) {
				t.Errorf("%s judged on %s, outside its areas", r.Defect, c.ID)
			}
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(ran), func(r string) bool { return !mine(r) })); n != 2 {
		t.Errorf("ran %v, want one run per group", ran)
	}
	// A group with a problem: every member again alone.
	interact = true
	ran = nil
	s, err = selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeArea, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	alone := 0
	for _, r := range ran {
		if mine(r) && !strings.Contains(r, " ") {
			alone++
		}
	}
	if alone < 2 {
		t.Errorf("a group with a problem was not run again member by member: %v", ran)
	}
	// What is reported is each member's run alone, and the member whose
	// judgement the group run changed (ping-unanswered: tools/two went red
	// beside hostinfo-missing) gets one problem saying the runs disagree:
	// the run alone does not hide it (an interaction, or a fault of ours).
	for _, r := range s.Runs {
		if r.Group != nil && len(r.Problems) > 0 {
			t.Errorf("%s: a problem reported from a group run %v: %v", r.Defect, r.Group, r.Problems)
		}
		if !mine(r.Defect) {
			continue
		}
		want := 0
		if r.Defect == "ping-unanswered" {
			want = 1
		}
		if len(r.Problems) != want || want == 1 && !(strings.Contains(r.Problems[0], "the runs disagree") && strings.Contains(r.Problems[0], "hostinfo-missing") && strings.Contains(r.Problems[0], "tools/two")) {
			t.Errorf("%s: problems %v, want %d (ping-unanswered: the group run's tools/two beside hostinfo-missing, which alone it does not show)", r.Defect, r.Problems, want)
		}
	}
	if s.OK() {
		t.Error("a self-test whose group run and runs alone disagree is OK")
	}
	if len(s.Unproven) > 0 || len(s.FalseFail) > 0 {
		t.Errorf("after the reruns alone: unproven %v, false failures %v", s.Unproven, s.FalseFail)
	}
}

func TestMain(m *testing.M) { e2etest.Main(m) }

// A defect of AloneDefects is never grouped, whatever its areas.
func TestAloneDefectsRunAlone(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{
		"app-tools-blocked": {Red: []string{"tools/one"}},
		"hostinfo-missing":  {Red: []string{"downloads/two"}},
		"message-dropped":   {Red: []string{"links/three"}},
	}}
	groups := selftest.DefectGroups(tab, []string{"app-tools-blocked", "hostinfo-missing", "message-dropped"})
	for _, g := range groups {
		if slices.Contains(g, "app-tools-blocked") && len(g) > 1 {
			t.Errorf("app-tools-blocked in a group: %v", groups)
		}
	}
	if len(groups) != 2 {
		t.Errorf("groups %v, want app-tools-blocked alone and the other two together", groups)
	}
}

// A defect that may make checks of another area SKIP reaches that area:
// it is not grouped with a defect whose checks live there, and still may
// be with one of an area it does not reach.
func TestDefectsAreNotGroupedWhereTheyMakeChecksSkip(t *testing.T) {
	tab := selftest.Table{Defects: map[string]selftest.Expect{
		"display-switch-misreported": {Red: []string{"display/one"}, Skip: []string{"sizing/two"}},
		"size-changed-ignored":       {Red: []string{"sizing/two"}},
		"message-dropped":            {Red: []string{"messages/three"}},
	}}
	groups := selftest.DefectGroups(tab, []string{"display-switch-misreported", "size-changed-ignored", "message-dropped"})
	for _, g := range groups {
		if slices.Contains(g, "display-switch-misreported") && slices.Contains(g, "size-changed-ignored") {
			t.Errorf("a defect grouped with one whose checks it may make SKIP: %v", groups)
		}
	}
	if len(groups) != 2 {
		t.Errorf("groups %v, want two: message-dropped with one of the others", groups)
	}
}

// The grouped scope (CI's) runs the whole catalogue under the runs of
// CoverRuns: every defect is judged on every check, each area in a run
// where no other defect reaches it; fewer runs than defects. A red in an
// area a defect is the only actor on, which the area scope never runs,
// sends its run's members to run again alone over the whole catalogue, so
// the defect that turned it red is named (a false failure), its
// runmates not: also where the red is in a runmate's own area (the old
// grouping by disjoint areas never judged a defect there).
func TestGroupedScopeJudgesEachDefectEverywhereAsTheOnlyActor(t *testing.T) {
	// Eight defects, each breaking one check of an area of its own, and
	// eight areas no defect reaches; one may make a check there SKIP.
	tab := selftest.Table{Defects: map[string]selftest.Expect{}}
	var mine, catalogue []string
	for i, d := range reference.Defects[:8] {
		mine = append(mine, d.Name)
		tab.Defects[d.Name] = selftest.Expect{Red: []string{fmt.Sprintf("own%d/check", i)}}
		catalogue = append(catalogue, fmt.Sprintf("own%d/check", i), fmt.Sprintf("other%d/check", i))
	}
	skipper := mine[2]
	e := tab.Defects[skipper]
	e.Skip = []string{"other0/check"}
	tab.Defects[skipper] = e
	spill := ""       // a check mine[0] also turns red
	together := false // … only in a run with others
	var ran []string
	fake := cannedRuns(&ran, catalogue, func(ds []string, o runner.Options, id string) protocol.Status {
		if len(o.Selection.Globs) > 0 {
			t.Errorf("run of %v selected %v: want the whole catalogue", ds, o.Selection.Globs)
		}
		st := protocol.StatusPass
		for _, d := range ds {
			switch {
			case slices.Contains(tab.Defects[d].Red, id), d == mine[0] && id == spill && (!together || len(ds) > 1):
				return protocol.StatusFail
			case slices.Contains(tab.Defects[d].Skip, id):
				st = protocol.StatusSkip
			}
		}
		return st
	})
	ours := func(r string) bool {
		return slices.ContainsFunc(mine, func(d string) bool { return strings.Contains(r, d) })
	}
	s, err := selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeGrouped, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	runs, several := 0, false
	for _, r := range ran {
		if ours(r) {
			runs++
			several = several || strings.Contains(r, " ")
		}
	}
	if !several || runs >= len(mine) {
		t.Errorf("ran %v: want the eight defects in fewer runs than eight, several in one", ran)
	}
	for _, r := range s.Runs {
		if !ours(r.Defect) {
			continue
		}
		if ids := judgedOn(r); len(ids) != len(catalogue) {
			t.Errorf("%s judged on %v: want every check of the catalogue (%d)", r.Defect, ids, len(catalogue))
		}
		if len(r.Problems) > 0 || r.GroupProblems != nil {
			t.Errorf("%s: problems %v, its run's %v (a runmate's allowed SKIP is no problem of its)", r.Defect, r.Problems, r.GroupProblems)
		}
	}
	// (The other areas' checks have no defect of their own here: they are
	// unproven, which is not what this test is about.)
	if len(s.FalseFail) > 0 || slices.ContainsFunc(s.Unproven, func(id string) bool { return strings.HasPrefix(id, "own") }) {
		t.Errorf("clean runs: false failures %v, unproven %v", s.FalseFail, s.Unproven)
	}

	// A red where mine[0] is the only actor: in an area no one reaches,
	// and in a runmate's own area (judged for mine[0] in another run).
	for _, c := range []string{"other5/check", "own1/check"} {
		spill, ran = c, nil
		s, err = selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeGrouped, Parallel: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ran, "["+mine[0]+"]") {
			t.Errorf("%s red: ran %v, want %s again alone", c, ran, mine[0])
		}
		if len(s.FalseFail) != 1 || !strings.HasPrefix(s.FalseFail[0], c+" under "+mine[0]) {
			t.Errorf("%s red: false failures %v, want %s under %s alone", c, s.FalseFail, c, mine[0])
		}
	}

	// mine[0] turns other5/check red only in a run with others (as two
	// defects that interact, or a fault of ours that a busier run brings
	// out): every defect judged on it there shows a false failure its run
	// alone does not, and the disagreement is reported, naming mine[0]
	// (itself or a runmate), instead of being hidden by the runs alone.
	spill, together, ran = "other5/check", true, nil
	s, err = selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: selftest.ScopeGrouped, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.FalseFail) != 0 || s.OK() {
		t.Errorf("red only in runs with others: false failures %v (want none: alone each is clean), OK %v (want false)", s.FalseFail, s.OK())
	}
	reported := 0
	for _, r := range s.Runs {
		for _, p := range r.Problems {
			if !strings.Contains(p, "the runs disagree") || !strings.Contains(p, "other5/check") || !strings.Contains(r.Defect+" "+p, mine[0]) {
				t.Errorf("%s: problem %q; want only a disagreement on other5/check naming %s", r.Defect, p, mine[0])
			}
			reported++
		}
	}
	if reported == 0 {
		t.Errorf("no run reported the disagreement on other5/check (ran %v)", ran)
	}
}

// cannedRuns is a selftest Run of canned results: each run of the
// reference host with defects ds gives every check of catalogue the
// status status says, and is recorded in ran (its defects, printed).
func cannedRuns(ran *[]string, catalogue []string, status func(ds []string, o runner.Options, id string) protocol.Status) func(context.Context, hosts.Host, runner.Options) (report.HostRun, error) {
	var mu sync.Mutex
	return func(_ context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) {
		ds := h.(*reference.Host).Defects().List()
		mu.Lock()
		*ran = append(*ran, fmt.Sprint(ds))
		mu.Unlock()
		var hr report.HostRun
		for _, id := range catalogue {
			hr.Cases = append(hr.Cases, report.Case{TestMeta: protocol.TestMeta{ID: id, Clause: protocol.ClauseMust}, Status: status(ds, o, id)})
		}
		return hr, nil
	}
}

// judgedOn is the set of checks a defect's run was judged on.
func judgedOn(r selftest.DefectRun) map[string]bool {
	ids := map[string]bool{}
	for _, c := range r.Cases {
		ids[c.ID] = true
	}
	return ids
}
