package report

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Judged says how many of the selected checks got a verdict. It is the one
// count of coverage every format shows (console, Markdown, JSON, JUnit
// properties, TAP comment, HTML header), computed by JudgedOf:
//
//   - judged: PASS or FAIL. The host was observed doing, or not doing, what
//     the requirement says.
//   - not judged: SKIP, NOTRUN, OPTIONAL and BLOCKED. The check did not
//     get to the requirement (a capability missing, a precondition unmet,
//     not reached, or blocked by the failure another check judges), or
//     found a MAY feature absent, which is no verdict on conformance.
//   - no verdict: TIMEOUT and ERROR (and a status this version does not
//     know). The check ran but ended without a verdict either way; these
//     are neither judged passes nor skips and are shown on their own.
//
// The counts are of statuses, before any baseline: an expected failure is
// a judged FAIL. Selected = Judged + NotJudged + NoVerdict.
type Judged struct {
	Selected int `json:"selected"`
	Judged   int `json:"judged"`
	Pass     int `json:"pass"`
	Fail     int `json:"fail"`

	NotJudged int `json:"notJudged"`
	Skip      int `json:"skip"`
	NotRun    int `json:"notRun"`
	Optional  int `json:"optional"`
	Blocked   int `json:"blocked"`

	NoVerdict int `json:"noVerdict"`
	Timeout   int `json:"timeout"`
	// Error counts ERROR and any unknown status.
	Error int `json:"error"`
}

// JudgedOf counts cases by whether they were judged.
func JudgedOf(cases []Case) Judged {
	var j Judged
	for _, c := range cases {
		j.add(c.Status)
	}
	return j
}

func (j *Judged) add(s protocol.Status) {
	j.Selected++
	switch s {
	case protocol.StatusPass:
		j.Pass++
		j.Judged++
	case protocol.StatusFail:
		j.Fail++
		j.Judged++
	case protocol.StatusSkip:
		j.Skip++
		j.NotJudged++
	case protocol.StatusNotRun:
		j.NotRun++
		j.NotJudged++
	case protocol.StatusOptional:
		j.Optional++
		j.NotJudged++
	case protocol.StatusBlocked:
		j.Blocked++
		j.NotJudged++
	case protocol.StatusTimeout:
		j.Timeout++
		j.NoVerdict++
	default:
		j.Error++
		j.NoVerdict++
	}
}

// Judged counts the cases of one host.
func (h HostRun) Judged() Judged { return JudgedOf(h.Cases) }

// Judged counts every case of the run, all hosts together.
func (r Run) Judged() Judged { return JudgedOf(r.cases()) }

// String is the line every format shows, e.g.
//
//	judged 49 of 66 (PASS 47, FAIL 2); 17 not judged: SKIP 12, BLOCKED 3, OPTIONAL 2
//
// followed, when any check ended without a verdict, by
// "; 1 without a verdict: TIMEOUT 1". Only non-zero parts of the two
// trailing groups are listed; PASS and FAIL always are.
func (j Judged) String() string {
	s := fmt.Sprintf("judged %d of %d (PASS %d, FAIL %d)", j.Judged, j.Selected, j.Pass, j.Fail)
	if j.NotJudged > 0 {
		s += fmt.Sprintf("; %d not judged: %s", j.NotJudged,
			nonZero([]string{"SKIP", "BLOCKED", "NOTRUN", "OPTIONAL"}, []int{j.Skip, j.Blocked, j.NotRun, j.Optional}))
	}
	if j.NoVerdict > 0 {
		s += fmt.Sprintf("; %d without a verdict: %s", j.NoVerdict,
			nonZero([]string{"TIMEOUT", "ERROR"}, []int{j.Timeout, j.Error}))
	}
	return s
}

func nonZero(names []string, counts []int) string {
	var parts []string
	for i, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", names[i], n))
		}
	}
	return strings.Join(parts, ", ")
}
