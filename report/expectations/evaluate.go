package expectations

import (
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// CaseResult is the outcome of one case, or of one expectations entry that
// matched no case (Outcome absent, Status empty).
type CaseResult struct {
	Host    string
	ID      string
	Status  protocol.Status
	Outcome report.Outcome
	// Expect is the expectations entry involved, nil when none.
	Expect *report.Expectation
}

// Result is a run judged against an expectations file.
type Result struct {
	// Cases has every case of the run, host by host, then the absent entries.
	Cases []CaseResult
	Tally report.Tally
	// Absent counts the expectations entries that matched no case.
	Absent int
	// Judged counts the cases that ran to a verdict (not SKIP or NOTRUN).
	Judged int
}

// Verdict is what a run means for CI.
type Verdict int

const (
	// Pass: no regression, and no stale entry (or stale entries allowed).
	Pass Verdict = iota
	// Fail: a failure not covered by the expectations, or a stale entry.
	Fail
	// Empty: no check was judged: nothing selected, or everything skipped.
	Empty
)

func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	case Empty:
		return "empty"
	}
	return "unknown"
}

// Evaluate judges run against e without changing run. With a nil e, the
// marks already on the run (from a saved JSON) are used.
func Evaluate(run report.Run, e *Expectations) Result {
	// Apply writes to the hosts and copies the cases it marks, so a copy of
	// the hosts leaves the caller's run untouched.
	run.Hosts = append([]report.HostRun(nil), run.Hosts...)
	Apply(&run, e)
	var r Result
	var absent []CaseResult
	for _, h := range run.Hosts {
		for _, c := range h.Cases {
			r.Tally.Add(c)
			if c.Status != protocol.StatusSkip && c.Status != protocol.StatusNotRun {
				r.Judged++
			}
			r.Cases = append(r.Cases, CaseResult{Host: h.Host, ID: c.ID, Status: c.Status, Outcome: c.Outcome(), Expect: c.Expect})
		}
		for _, x := range h.Absent {
			x := x
			absent = append(absent, CaseResult{Host: h.Host, ID: x.ID, Outcome: report.OutcomeAbsent, Expect: &x})
		}
	}
	r.Absent = len(absent)
	r.Cases = append(r.Cases, absent...)
	return r
}

// Verdict decides the run: Fail for any regression, or any stale entry
// unless allowStale; else Empty when no check was judged; else Pass. A run
// whose only judged checks failed as expected passes.
func (r Result) Verdict(allowStale bool) Verdict {
	switch {
	case r.Tally.Failed > 0, r.Tally.Stale > 0 && !allowStale:
		return Fail
	case r.Judged == 0:
		return Empty
	}
	return Pass
}

// Stale lists the cases whose expectations entry is stale.
func (r Result) Stale() []CaseResult { return r.only(report.OutcomeStale) }

// Regressions lists the failures no expectations entry covers.
func (r Result) Regressions() []CaseResult { return r.only(report.OutcomeFail) }

func (r Result) only(o report.Outcome) []CaseResult {
	var out []CaseResult
	for _, c := range r.Cases {
		if c.Outcome == o {
			out = append(out, c)
		}
	}
	return out
}
