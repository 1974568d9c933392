package report

import (
	"slices"

	"github.com/mcpconform/mcpconform/internal/specreg"
	"github.com/mcpconform/mcpconform/protocol"
)

// The HTML report's coverage view: every requirement of the register, by
// edition and keyword, with the checks of this run that judge it and their
// status on each host, or the reason no check judges it.
type htmlCoverage struct {
	Editions []htmlCoverageEdition `json:"editions"`
}

type htmlCoverageEdition struct {
	Edition string `json:"edition"`
	// Source is the spec file the register was derived from
	// ("specification/draft/apps.mdx@08b46e77").
	Source string `json:"source"`
	// Judged counts the requirements a check of this run judges, of Total.
	Judged       int                 `json:"judged"`
	Total        int                 `json:"total"`
	Requirements []htmlRequirement   `json:"requirements"`
	Groups       []htmlCoverageGroup `json:"groups"`
}

type htmlCoverageGroup struct {
	Group  string `json:"group"`
	Judged int    `json:"judged"`
	Total  int    `json:"total"`
}

type htmlRequirement struct {
	ID      string `json:"id"`
	Keyword string `json:"keyword"`
	Clause  string `json:"clause"`
	Section string `json:"section"`
	Line    int    `json:"line"`
	Quote   string `json:"quote"`
	// Checks are the run's checks naming it, with one cell kind per host
	// ("" where the host did not run it).
	Checks []htmlRequirementCheck `json:"checks"`
	// Reason is why no check judges it (specreg.Unjudged), or, when its
	// checks exist but none ran, "no check of this run".
	ReasonKind string `json:"reasonKind,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

type htmlRequirementCheck struct {
	ID     string   `json:"id"`
	Clause string   `json:"clause"`
	Kinds  []string `json:"kinds"`
}

// clauseOrder sorts a view by keyword: the binding clauses first.
var clauseOrder = []protocol.Clause{protocol.ClauseMust, protocol.ClauseMustNot, protocol.ClauseShould, protocol.ClauseShouldNot, protocol.ClauseMay}

// htmlCoverageOf builds the view, or nil when no case of the run names a
// requirement (results written before checks named them).
func htmlCoverageOf(r Run) *htmlCoverage {
	reg, err := specreg.Load()
	if err != nil {
		return nil
	}
	// The run's checks in grid order, with their kind on each host.
	type runCheck struct {
		clause string
		reqs   []string
		kinds  []string
	}
	var order []string
	checks := map[string]*runCheck{}
	named := false
	for hi, h := range r.Hosts {
		for _, c := range h.Cases {
			rc := checks[c.ID]
			if rc == nil {
				rc = &runCheck{clause: string(c.Clause), reqs: c.Requirements, kinds: make([]string, len(r.Hosts))}
				checks[c.ID] = rc
				order = append(order, c.ID)
			}
			rc.kinds[hi] = cellKind(c)
			named = named || len(c.Requirements) > 0
		}
	}
	if !named {
		return nil
	}
	cov := &htmlCoverage{Editions: []htmlCoverageEdition{}}
	for _, src := range reg.Sources {
		ed := htmlCoverageEdition{Edition: string(src.Edition), Source: src.Path + "@" + src.Commit[:min(8, len(src.Commit))], Requirements: []htmlRequirement{}}
		groups := map[specreg.ClauseGroup]*htmlCoverageGroup{}
		for _, g := range specreg.ClauseGroups {
			groups[g] = &htmlCoverageGroup{Group: string(g)}
		}
		for _, s := range reg.Requirements {
			if s.Edition != src.Edition {
				continue
			}
			req := htmlRequirement{ID: s.ID, Keyword: string(s.Keyword), Clause: string(s.Clause), Section: s.Section, Line: s.Line, Quote: s.Quote, Checks: []htmlRequirementCheck{}}
			judged := false
			for _, id := range order {
				rc := checks[id]
				if slices.Contains(rc.reqs, s.ID) {
					req.Checks = append(req.Checks, htmlRequirementCheck{ID: id, Clause: rc.clause, Kinds: rc.kinds})
					judged = judged || rc.clause != string(protocol.ClauseInfo)
				}
			}
			if !judged {
				if why, ok := specreg.Unjudged[s.ID]; ok {
					req.ReasonKind, req.Reason = string(why.Kind), why.Why
				} else {
					req.ReasonKind, req.Reason = "not run", "its checks are not in this run"
				}
			}
			g := groups[specreg.GroupOf(s.Clause)]
			g.Total++
			ed.Total++
			if judged {
				g.Judged++
				ed.Judged++
			}
			ed.Requirements = append(ed.Requirements, req)
		}
		slices.SortStableFunc(ed.Requirements, func(a, b htmlRequirement) int {
			return slices.Index(clauseOrder, protocol.Clause(a.Clause)) - slices.Index(clauseOrder, protocol.Clause(b.Clause))
		})
		for _, g := range specreg.ClauseGroups {
			ed.Groups = append(ed.Groups, *groups[g])
		}
		cov.Editions = append(cov.Editions, ed)
	}
	return cov
}
