package selftest_test

import (
	"context"
	"fmt"
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
	named := map[string]bool{}
	for check, ds := range tab.Red {
		if len(ds) == 0 {
			t.Errorf("check %s has no defect that turns it red: it is not proven able to fail", check)
		}
		for _, d := range ds {
			named[d] = true
		}
	}
	for _, d := range reference.Defects {
		if !named[d.Name] {
			t.Errorf("defect %s turns no check red in table.json", d.Name)
		}
	}
}

// The scoring itself, on canned runs: a false failure, an unproven check
// and a check missing from the table are all caught.
func TestScoringCatchesFalseFailuresAndUnproven(t *testing.T) {
	tab := selftest.Table{Red: map[string][]string{
		"a/one": {"ping-unanswered"},
		"a/two": {"hostinfo-missing"},
	}}
	meta := func(id string) protocol.TestMeta { return protocol.TestMeta{ID: id, Clause: protocol.ClauseMust} }
	fake := func(_ context.Context, h hosts.Host, _ runner.Options) (report.HostRun, error) {
		st := map[string]protocol.Status{"a/one": "PASS", "a/two": "PASS", "a/three": "PASS"}
		switch fmt.Sprint(h.(*reference.Host).Defects().List()) {
		case "[ping-unanswered]":
			st["a/one"] = "FAIL"
			st["a/three"] = "FAIL" // not in the table for a/three: false failure
		case "[hostinfo-missing]":
			// a/two should go red here but does not: unproven
		}
		var hr report.HostRun
		for _, id := range []string{"a/one", "a/two", "a/three"} {
			hr.Cases = append(hr.Cases, report.Case{TestMeta: meta(id), Status: st[id]})
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
	if strings.Join(s.Proven, ",") != "a/one" || !strings.Contains(strings.Join(s.Unproven, ","), "a/two") {
		t.Errorf("proven %v unproven %v", s.Proven, s.Unproven)
	}
	if len(s.FalseFail) != 1 || !strings.HasPrefix(s.FalseFail[0], "a/three under ping-unanswered") {
		t.Errorf("false failures %v", s.FalseFail)
	}
	if strings.Join(s.Missing, ",") != "a/three" {
		t.Errorf("missing %v", s.Missing)
	}
	if got := s.Score(); got < 0.33 || got > 0.34 {
		t.Errorf("score %v, want 1/3", got)
	}
}

// Under ScopeArea each defect run selects the areas of the checks the table
// expects it to turn red, and nothing else; the defect-free run is whole.
func TestAreaScopeSelectsTheDefectsAreas(t *testing.T) {
	tab := selftest.Table{Red: map[string][]string{
		"lifecycle/one": {"ping-unanswered"},
		"errors/two":    {"ping-unanswered"},
		"context/three": {"hostinfo-missing"},
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
	if got["[ping-unanswered]"] != "errors/*,lifecycle/*" || got["[hostinfo-missing]"] != "context/*" {
		t.Errorf("selections %v", got)
	}
	if _, err := selftest.Run(context.Background(), tab, selftest.Options{Run: fake, Scope: "some"}); err == nil {
		t.Error("an unknown scope was accepted")
	}
}

func TestMain(m *testing.M) { e2etest.Main(m) }
