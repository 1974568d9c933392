package report

import (
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

func coverageRun() Run {
	blocked := meta("csp/undeclared-connect-blocked", protocol.ClauseMustNot, protocol.EditionStable, "")
	blocked.Requirements = []string{"host-not-allow-undeclared-domains", "host-block-connections-undeclared-domains"}
	audit := meta("csp/audit-log", protocol.ClauseInfo, protocol.EditionStable, "")
	audit.Requirements = []string{"host-audit-trail"}
	a := chromiumHost("a", "a", "1", t0, time.Second)
	a.Cases = []Case{{TestMeta: blocked, Status: protocol.StatusFail}, {TestMeta: audit, Status: protocol.StatusPass}}
	b := chromiumHost("b", "b", "1", t0, time.Second)
	b.Cases = []Case{{TestMeta: blocked, Status: protocol.StatusPass}}
	return Run{Hosts: []HostRun{a, b}}
}

// The coverage view lists every requirement of each edition with the run's
// checks and their status per host, or the reason no check judges it.
func TestHTMLCoverage(t *testing.T) {
	cov := htmlCoverageOf(coverageRun())
	if cov == nil || len(cov.Editions) != len(protocol.Editions) {
		t.Fatalf("coverage view: %+v, want one section per edition", cov)
	}
	find := func(ed, id string) htmlRequirement {
		for _, e := range cov.Editions {
			for _, r := range e.Requirements {
				if e.Edition == ed && r.ID == id {
					return r
				}
			}
		}
		t.Fatalf("%s %s not in the coverage view", ed, id)
		return htmlRequirement{}
	}
	r := find("2026-01-26", "host-not-allow-undeclared-domains")
	if len(r.Checks) != 1 || r.Checks[0].ID != "csp/undeclared-connect-blocked" || r.Checks[0].Kinds[0] != "FAIL" || r.Checks[0].Kinds[1] != "PASS" || r.Reason != "" {
		t.Errorf("a judged requirement: got %+v, want its check with FAIL on a and PASS on b, no reason", r)
	}
	// An INFO check observes: the requirement keeps its reason.
	if r := find("2026-01-26", "host-audit-trail"); len(r.Checks) != 1 || r.ReasonKind != "vantage" {
		t.Errorf("an observed requirement: got %+v, want the INFO check and the vantage reason", r)
	}
	if r := find("draft", "host-warn-users-ui-requires"); r.ReasonKind != "human" || len(r.Checks) != 0 {
		t.Errorf("an unjudged requirement: got %+v, want reason human", r)
	}
	if r := find("2026-01-26", "host-different-origins"); r.ReasonKind != "not run" {
		t.Errorf("a requirement whose check did not run: got %+v, want \"not run\"", r)
	}
	e := cov.Editions[0]
	if e.Judged != 2 || e.Requirements[0].Clause != string(protocol.ClauseMust) {
		t.Errorf("stable: %d judged (want 2), first keyword %s (want MUST first)", e.Judged, e.Requirements[0].Clause)
	}
	// Results without requirements (written before checks named them) get
	// no view.
	if cov := htmlCoverageOf(fullRun()); cov != nil {
		t.Errorf("a run whose checks name no requirement got a coverage view")
	}
}
