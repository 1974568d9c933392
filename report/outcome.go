package report

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Outcome is what a case's status means once a baseline has had its say.
// Every writer and the verdict derive it from Case.Outcome, so a report can
// never disagree with the exit code about a case.
type Outcome string

const (
	// OutcomePass: the check passed and no baseline entry expected otherwise
	// (or its entry allows a pass, as for a known flaky check).
	OutcomePass Outcome = "pass"
	// OutcomeFail: the check failed, timed out or errored and no baseline
	// entry covers that status. With a baseline in use, this is a regression.
	OutcomeFail Outcome = "fail"
	// OutcomeExpectedFail: the check failed as its baseline entry expects.
	OutcomeExpectedFail Outcome = "expected-fail"
	// OutcomeFlaky: a known flaky check ended with a failing status its
	// entry's allow list accepts.
	OutcomeFlaky Outcome = "flaky-allowed"
	// OutcomeStale: the check passed but its baseline entry expects a
	// failure; the entry should be removed. It fails the run unless stale
	// entries are allowed.
	OutcomeStale Outcome = "stale"
	// OutcomeSkipped: SKIP, NOTRUN or BLOCKED; the check was not judged. A
	// baseline entry for it is tolerated (neither met nor stale: the check
	// did not get to what the entry is about). Never counted as a pass.
	OutcomeSkipped Outcome = "skipped"
	// OutcomeOptional: a MAY check observed the optional feature absent
	// (status OPTIONAL, "optional, not implemented"). Never a failure,
	// whatever the baseline says: a MAY needs no entry, and one is tolerated.
	OutcomeOptional Outcome = "optional"
	// OutcomeAbsent: a baseline entry matched no case (not selected, or no
	// longer in the suite). Tolerated. Only baseline entries have it.
	OutcomeAbsent Outcome = "absent"
)

// Outcomes lists every outcome, most severe first: the order the Markdown
// summary sorts rows in.
var Outcomes = []Outcome{OutcomeFail, OutcomeStale, OutcomeExpectedFail, OutcomeFlaky, OutcomeOptional, OutcomeSkipped, OutcomePass, OutcomeAbsent}

// Outcome classifies the case from its status and its baseline entry:
//
//	status            no entry  entry (no allow)  entry, status allowed  entry, not allowed
//	PASS              pass      stale             pass                   stale
//	FAIL/TIMEOUT/...  fail      expected-fail     flaky-allowed          fail
//	SKIP/NOTRUN/BLOCKED skipped skipped           skipped                skipped
//	OPTIONAL          optional  optional          optional               optional
//
// An unknown status counts as a failure, as everywhere in this package.
func (c Case) Outcome() Outcome {
	if c.Status == protocol.StatusSkip || c.Status == protocol.StatusNotRun || c.Status == protocol.StatusBlocked {
		return OutcomeSkipped
	}
	if c.Status == protocol.StatusOptional {
		return OutcomeOptional
	}
	pass := c.Status == protocol.StatusPass
	e := c.Expect
	switch {
	case e == nil && pass:
		return OutcomePass
	case e == nil:
		return OutcomeFail
	case len(e.Allow) == 0 && pass:
		return OutcomeStale
	case len(e.Allow) == 0:
		return OutcomeExpectedFail
	case e.Allows(c.Status) && pass:
		return OutcomePass
	case e.Allows(c.Status):
		return OutcomeFlaky
	case pass:
		return OutcomeStale
	}
	return OutcomeFail
}

// ReasonCode is a stable, machine-readable code for why a case was not
// judged: "unsupported:<capability>" when the host lacks a capability the
// check needs (the suite's "unsupported: <kind>" message), "skipped" for any
// other SKIP, "not-run" for NOTRUN and "blocked:<check id>" for BLOCKED (the
// first blocker). It is empty for every other status.
func (c Case) ReasonCode() string {
	switch c.Status {
	case protocol.StatusBlocked:
		if len(c.BlockedBy) > 0 {
			return "blocked:" + oneLine(sanitize(c.BlockedBy[0]))
		}
		return "blocked"
	case protocol.StatusNotRun:
		return "not-run"
	case protocol.StatusSkip:
		msg := strings.TrimSpace(sanitize(c.Message))
		if rest, ok := strings.CutPrefix(msg, "unsupported:"); ok {
			kind := strings.TrimSpace(rest)
			if i := strings.IndexAny(kind, " \t\n(,;"); i >= 0 {
				kind = kind[:i]
			}
			if kind != "" {
				return "unsupported:" + kind
			}
		}
		return "skipped"
	}
	return ""
}

// Tally counts cases by outcome. Unlike Counts, which counts statuses, it
// reflects the baseline, and it is what every summary line shows.
type Tally struct {
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	ExpectedFail int `json:"expectedFail"`
	Flaky        int `json:"flakyAllowed"`
	Stale        int `json:"stale"`
	// Skipped counts SKIP, NOTRUN and BLOCKED; Unsupported is the part of
	// it skipped because the host lacks a capability, Blocked the part
	// blocked by another check's failure.
	Skipped     int `json:"skipped"`
	Unsupported int `json:"unsupported"`
	Blocked     int `json:"blocked"`
	// Optional counts MAY checks that found the feature not implemented.
	Optional int `json:"optional"`
}

// Add counts one case.
func (t *Tally) Add(c Case) {
	switch c.Outcome() {
	case OutcomePass:
		t.Passed++
	case OutcomeFail:
		t.Failed++
	case OutcomeExpectedFail:
		t.ExpectedFail++
	case OutcomeFlaky:
		t.Flaky++
	case OutcomeStale:
		t.Stale++
	case OutcomeOptional:
		t.Optional++
	case OutcomeSkipped:
		t.Skipped++
		if strings.HasPrefix(c.ReasonCode(), "unsupported:") {
			t.Unsupported++
		}
		if c.Status == protocol.StatusBlocked {
			t.Blocked++
		}
	}
}

// Total is the number of cases counted.
func (t Tally) Total() int {
	return t.Passed + t.Failed + t.ExpectedFail + t.Flaky + t.Stale + t.Skipped + t.Optional
}

// String is the summary line CI parses: "N passed, N failed, N skipped",
// followed, only when non-zero, by ", N expected failures", ", N flaky
// allowed", ", N stale" and ", N optional not implemented". Without a
// baseline or an OPTIONAL case it is exactly Summary(Counts).
func (t Tally) String() string {
	s := fmt.Sprintf("%d passed, %d failed, %d skipped", t.Passed, t.Failed, t.Skipped)
	if t.ExpectedFail > 0 {
		s += fmt.Sprintf(", %d expected %s", t.ExpectedFail, plural(t.ExpectedFail, "failure", "failures"))
	}
	if t.Flaky > 0 {
		s += fmt.Sprintf(", %d flaky allowed", t.Flaky)
	}
	if t.Stale > 0 {
		s += fmt.Sprintf(", %d stale", t.Stale)
	}
	if t.Optional > 0 {
		s += fmt.Sprintf(", %d optional not implemented", t.Optional)
	}
	return s
}

// Tally counts the cases of one host by outcome.
func (h HostRun) Tally() Tally {
	var t Tally
	for _, c := range h.Cases {
		t.Add(c)
	}
	return t
}

// Tally counts every case of the run by outcome.
func (r Run) Tally() Tally { return HostRun{Cases: r.cases()}.Tally() }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// baselineReason is the entry's reason, sanitised, or fallback when it has
// none.
func baselineReason(c Case, fallback string) string {
	if c.Expect != nil {
		if r := oneLine(sanitize(c.Expect.Reason)); r != "" {
			return r
		}
	}
	return fallback
}

// allowList renders an entry's allow list, "PASS, TIMEOUT".
func allowList(e *Expectation) string {
	if e == nil {
		return ""
	}
	s := make([]string, len(e.Allow))
	for i, a := range e.Allow {
		s[i] = sanitize(string(a))
	}
	return strings.Join(s, ", ")
}
