package hostreview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// recorder is a testing.TB that keeps what a check reported.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

func tc(id string, s protocol.Status, msg string) report.Case {
	c := report.Case{Status: s, Message: msg}
	c.ID = id
	return c
}

var rv = Review{Host: "h", Reasons: []string{"host bug"}, Fail: map[string]string{"a/bug": "broke"}, Skip: map[string]string{"a/skip": "no agent"}}

func TestCheckCases(t *testing.T) {
	for _, c := range []struct {
		name  string
		cases []report.Case
		want  []string // fragments of the errors, in order; none: clean
	}{
		{"as reviewed", []report.Case{tc("a/bug", protocol.StatusFail, "it broke"), tc("a/skip", protocol.StatusSkip, "no agent here"), tc("a/ok", protocol.StatusPass, "")}, nil},
		{"a pass gone red", []report.Case{tc("a/bug", protocol.StatusFail, "it broke"), tc("a/skip", protocol.StatusSkip, "no agent"), tc("a/ok", protocol.StatusFail, "x")}, []string{`a/ok: got FAIL "x", reviewed PASS`}},
		{"another message", []report.Case{tc("a/bug", protocol.StatusFail, "other"), tc("a/skip", protocol.StatusSkip, "no agent")}, []string{`a/bug: got FAIL "other", reviewed FAIL "broke"`}},
		{"a reviewed check gone", []report.Case{tc("a/bug", protocol.StatusFail, "broke")}, []string{"a/skip was reviewed but is no longer in the suite"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{}
			rv.CheckCases(r, c.cases)
			if len(r.errs) != len(c.want) {
				t.Fatalf("errors %q, want %d like %q", r.errs, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(r.errs[i], w) {
					t.Errorf("error %q, want it to say %q", r.errs[i], w)
				}
			}
		})
	}
}

func TestCheckExpectations(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"exactly the bugs", "h:\n  - id: a/bug\n    reason: \"host bug: x\"\n", ""},
		{"a bug missing", "h:\n  - id: a/other\n    reason: \"host bug: x\"\n", "lists [a/other], the reviewed host bugs are [a/bug]"},
		{"a reason of another kind", "h:\n  - id: a/bug\n    reason: \"flaky\"\n", `the reason must start with one of ["host bug"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			exp, err := expectations.Parse("x.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			r := &recorder{}
			rv.CheckExpectations(r, exp, "x.yaml")
			if got := strings.Join(r.errs, "\n"); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("errors %q, want %q", got, c.want)
			}
		})
	}
}
