package conform

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// Judge decides a finished run, against the expectations exp (nil: none): it
// fails for a failure no entry covers, or for a stale entry unless
// allowStale; it is empty when no check was judged (nothing selected, or
// everything skipped). With failOnShould false, SHOULD and MAY failures
// do not gate (report.Gating). The error says what failed the run
// (regressions and stale entries by host and id) or that nothing ran; it
// is nil for a plain failure without an expectations file, which the console and
// reports already name. Infrastructure errors and signals are the
// caller's to judge first.
func Judge(run report.Run, exp *expectations.Expectations, failOnShould, allowStale bool) (expectations.Verdict, error) {
	run = report.Gating(run, failOnShould)
	r := expectations.Evaluate(run, exp)
	v := r.Verdict(allowStale)
	switch v {
	case expectations.Empty:
		return v, errors.New("no check passed or failed: every selected check was skipped")
	case expectations.Fail:
	default:
		return v, nil
	}
	file := run.Expectations
	if exp != nil {
		file = exp.File
	}
	var parts []string
	if reg := r.Regressions(); len(reg) > 0 && file != "" {
		parts = append(parts, fmt.Sprintf("%d %s not in the expectations: %s", len(reg), plural(len(reg), "failure", "failures"), listCases(reg)))
	}
	if st := r.Stale(); len(st) > 0 && !allowStale {
		parts = append(parts, fmt.Sprintf("%d stale expectations %s (the check passes now; remove %s from %s, or pass --allow-stale): %s",
			len(st), plural(len(st), "entry", "entries"), plural(len(st), "it", "them"), file, listCases(st)))
	}
	if len(parts) == 0 {
		return v, nil
	}
	return v, errors.New(strings.Join(parts, "; "))
}

func listCases(cs []expectations.CaseResult) string {
	const most = 10
	var s []string
	for i, c := range cs {
		if i == most {
			s = append(s, fmt.Sprintf("and %d more", len(cs)-most))
			break
		}
		s = append(s, c.Host+" "+c.ID)
	}
	return strings.Join(s, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
