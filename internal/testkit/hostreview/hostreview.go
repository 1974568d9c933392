// Package hostreview holds a person's review of one real host's verdicts
// (MCP Inspector, mcp-ui, …) and checks a run against it: every check ends
// as reviewed, the expectations file lists exactly the reviewed host bugs,
// and the run passes that file's gate. The e2e tests of the host drivers
// share it, so a review reads the same way for every host.
package hostreview

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// Review maps check ids to a fragment of the message each must end with.
// A check named nowhere must PASS.
type Review struct {
	// Host is the host's key in its expectations file.
	Host string
	// Fail: the host bugs, each also an entry of the expectations file.
	Fail map[string]string
	// Optional: MAYs the host does not take up (no expectations entry).
	Optional map[string]string
	// Skip: checks the host cannot be judged by, with the reason.
	Skip map[string]string
	// Reasons are the words an expectations entry's reason may start with.
	Reasons []string
}

// CheckExpectations fails t unless exp's entries for r.Host are exactly
// r.Fail's ids, each with a reason that starts with one of r.Reasons.
func (r Review) CheckExpectations(t testing.TB, exp *expectations.Expectations, file string) {
	t.Helper()
	var listed []string
	for _, e := range exp.Entries(r.Host) {
		listed = append(listed, e.ID)
		if !slices.ContainsFunc(r.Reasons, func(p string) bool { return strings.HasPrefix(e.Reason, p) }) {
			t.Errorf("%s %s: the reason must start with one of %q: %q", file, e.ID, r.Reasons, e.Reason)
		}
	}
	reviewed := sortedKeys(r.Fail)
	sort.Strings(listed)
	if !reflect.DeepEqual(listed, reviewed) {
		t.Errorf("%s lists %v, the reviewed host bugs are %v", file, listed, reviewed)
	}
}

// CheckCases fails t for every case that did not end as reviewed and for
// every reviewed id that did not run; it returns the ids that ran.
func (r Review) CheckCases(t testing.TB, cases []report.Case) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.ID] = true
	}
	for _, c := range r.Differs(cases) {
		want, why := r.reviewed(c.ID)
		t.Errorf("%s: got %s %q, reviewed %s %q", c.ID, c.Status, c.Message, want, why)
	}
	for _, m := range []map[string]string{r.Fail, r.Optional, r.Skip} {
		for _, id := range sortedKeys(m) {
			if !seen[id] {
				t.Errorf("%s was reviewed but is no longer in the suite: update the review", id)
			}
		}
	}
	return seen
}

// Differs lists the cases that did not end as reviewed.
func (r Review) Differs(cases []report.Case) []report.Case {
	var out []report.Case
	for _, c := range cases {
		want, why := r.reviewed(c.ID)
		if c.Status != want || !strings.Contains(c.Message, why) {
			out = append(out, c)
		}
	}
	return out
}

// Status is the status the review gives check id (PASS where it names
// none).
func (r Review) Status(id string) protocol.Status {
	s, _ := r.reviewed(id)
	return s
}

// reviewed is the status a check must end with and a fragment of its
// message.
func (r Review) reviewed(id string) (protocol.Status, string) {
	if m, ok := r.Fail[id]; ok {
		return protocol.StatusFail, m
	} else if m, ok := r.Optional[id]; ok {
		return protocol.StatusOptional, m
	} else if m, ok := r.Skip[id]; ok {
		return protocol.StatusSkip, m
	}
	return protocol.StatusPass, ""
}

// Gate fails t unless hr passes exp's gate as `mcpconform run
// --expectations` judges it: no regression, no stale entry.
func Gate(t testing.TB, hr report.HostRun, exp *expectations.Expectations, file string) {
	t.Helper()
	res := expectations.Evaluate(report.Run{Hosts: []report.HostRun{hr}}, exp)
	if v := res.Verdict(false); v != expectations.Pass {
		t.Errorf("the run against %s: verdict %s; regressions %v, stale %v", file, v, res.Regressions(), res.Stale())
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
