package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// WriteTAP writes r as a TAP version 14 stream. One host gives a flat stream;
// several hosts give one parent stream with a subtest per host (a child
// stream indented four spaces, closed by "ok N - host", or "not ok N - host"
// when any of its points failed, with a YAML block holding the host's
// tally), so every harness sees one plan.
//
// The plan comes first so a harness knows the count before any result.
// Points, by outcome (see Case.Outcome):
//
//	pass           ok N - id
//	skipped        ok N - id # SKIP <reason>   (SKIP and NOTRUN; an unsupported
//	                                           capability is named in the reason)
//	fail           not ok N - id
//	expected-fail  not ok N - id # TODO baseline: <entry's reason>
//	flaky-allowed  not ok N - id # TODO flaky, baseline allows <statuses>: <reason>
//	stale          ok N - id # TODO stale baseline entry: <reason>
//	optional       ok N - id # TODO optional, not implemented: <reason>
//	                                           (OPTIONAL: a MAY check found the
//	                                           feature absent; never a failure)
//
// TODO is TAP's expected failure: a harness does not count a "not ok # TODO"
// as a failure, and reports an "ok # TODO" as a bonus to promote, which is
// what a stale entry is. Every point but a plain pass has a YAML block with
// message, status, clause, edition, spec_ref and duration_ms, plus
// reason_code, outcome, baseline and evidence where they apply.
//
// Each host's stream ends with its Judged line as a comment ("# judged 49
// of 66 (PASS 47, FAIL 2); …"), and with several hosts the parent stream
// ends with the run's. A host's Infra is written as a comment too: it is
// information for people, and the exit code, not the stream, carries that
// verdict (so does it for stale entries, which --allow-stale may accept).
func WriteTAP(w io.Writer, r Run) error {
	// Build in memory and write once, so a short write cannot leave half a
	// stream that a harness would read as a missing plan.
	var b bytes.Buffer
	b.WriteString("TAP version 14\n")
	if len(r.Hosts) == 1 {
		writeTAPHost(&b, "", r.Hosts[0])
	} else {
		fmt.Fprintf(&b, "1..%d\n", len(r.Hosts))
		for i, h := range r.Hosts {
			name := tapEscape(oneLine(sanitize(h.Host)))
			fmt.Fprintf(&b, "# Subtest: %s\n", name)
			ok := writeTAPHost(&b, "    ", h)
			fmt.Fprintf(&b, "%s %d - %s\n", okWord(ok), i+1, name)
			if !ok {
				// Harnesses that show only top-level diagnostics still learn
				// how the host failed.
				fmt.Fprintf(&b, "  ---\n  message: %s\n", strconv.Quote(h.Tally().String()))
				if infra := strings.TrimSpace(sanitize(h.Infra)); infra != "" {
					fmt.Fprintf(&b, "  infra: %s\n", strconv.Quote(infra))
				}
				b.WriteString("  ...\n")
			}
		}
		fmt.Fprintf(&b, "# %s\n", r.Judged())
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeTAPHost writes one host's stream with every line prefixed by indent,
// and reports whether no point in it failed (TODO points do not fail).
func writeTAPHost(b *bytes.Buffer, indent string, h HostRun) bool {
	fmt.Fprintf(b, "%s1..%d\n", indent, len(h.Cases))
	if infra := oneLine(sanitize(h.Infra)); infra != "" {
		fmt.Fprintf(b, "%s# infra: %s\n", indent, infra)
	}
	allOK := true
	for i, c := range h.Cases {
		n := i + 1
		desc := tapEscape(oneLine(sanitize(c.ID)))
		why := reason(h, c)
		if c.Status == protocol.StatusNotRun {
			why = notRun(why)
		}
		o := c.Outcome()
		switch o {
		case OutcomePass:
			fmt.Fprintf(b, "%sok %d - %s\n", indent, n, desc)
			continue
		case OutcomeSkipped:
			fmt.Fprintf(b, "%sok %d - %s # SKIP%s\n", indent, n, desc, tapReason(why))
		case OutcomeExpectedFail:
			fmt.Fprintf(b, "%snot ok %d - %s # TODO%s\n", indent, n, desc,
				tapReason("baseline: "+baselineReason(c, "expected failure")))
		case OutcomeFlaky:
			fmt.Fprintf(b, "%snot ok %d - %s # TODO%s\n", indent, n, desc,
				tapReason("flaky, baseline allows "+allowList(c.Expect)+": "+baselineReason(c, "known flaky check")))
		case OutcomeOptional:
			why = optional(why)
			fmt.Fprintf(b, "%sok %d - %s # TODO%s\n", indent, n, desc, tapReason(why))
		case OutcomeStale:
			why = "passed, but the baseline expects it to fail: remove the entry"
			fmt.Fprintf(b, "%sok %d - %s # TODO%s\n", indent, n, desc,
				tapReason("stale baseline entry: "+baselineReason(c, "expected failure")))
		default:
			allOK = false
			fmt.Fprintf(b, "%snot ok %d - %s\n", indent, n, desc)
		}
		writeTAPYAML(b, indent+"  ", why, c, o)
	}
	fmt.Fprintf(b, "%s# %s\n", indent, h.Judged())
	return allOK
}

// writeTAPYAML writes the diagnostic block of a point. Every string is
// double-quoted with strconv.Quote: its escapes (\n, \", \\, \xNN, \uNNNN)
// are all valid YAML, so a multi-line or hostile message stays on one line
// and cannot end the block early. Quoting also keeps the edition a string;
// unquoted, YAML 1.1 parsers read 2026-01-26 as a date.
func writeTAPYAML(b *bytes.Buffer, indent, why string, c Case, o Outcome) {
	q := func(s string) string { return strconv.Quote(sanitize(s)) }
	fmt.Fprintf(b, "%s---\n", indent)
	fmt.Fprintf(b, "%smessage: %s\n", indent, strconv.Quote(why))
	fmt.Fprintf(b, "%sstatus: %s\n", indent, q(string(c.Status)))
	if code := c.ReasonCode(); code != "" {
		fmt.Fprintf(b, "%sreason_code: %s\n", indent, q(code))
	}
	if o != OutcomeFail && o != OutcomeSkipped {
		fmt.Fprintf(b, "%soutcome: %s\n", indent, q(string(o)))
	}
	if e := c.Expect; e != nil {
		fmt.Fprintf(b, "%sbaseline_reason: %s\n", indent, q(e.Reason))
		if len(e.Allow) > 0 {
			fmt.Fprintf(b, "%sbaseline_allow: %s\n", indent, yamlList(statusStrings(e.Allow)))
		}
	}
	fmt.Fprintf(b, "%sclause: %s\n", indent, q(string(c.Clause)))
	fmt.Fprintf(b, "%sedition: %s\n", indent, q(string(c.Edition)))
	fmt.Fprintf(b, "%sspec_ref: %s\n", indent, q(c.SpecRef))
	fmt.Fprintf(b, "%sduration_ms: %d\n", indent, max(c.Duration, 0).Milliseconds())
	if len(c.Evidence) > 0 {
		fmt.Fprintf(b, "%sevidence: %s\n", indent, yamlList(c.Evidence))
	}
	fmt.Fprintf(b, "%s...\n", indent)
}

// yamlList is a YAML flow sequence of double-quoted, sanitised strings.
func yamlList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(sanitize(s))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func statusStrings(ss []protocol.Status) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// tapReason formats a directive reason, with its leading space when present.
func tapReason(why string) string {
	if why = tapEscape(oneLine(why)); why != "" {
		return " " + why
	}
	return ""
}

// tapEscape applies TAP 14's escaping for descriptions and directive reasons:
// "\" becomes "\\" and "#" becomes "\#", so a "#" in a message can never be
// read as the start of a directive.
func tapEscape(s string) string {
	if !strings.ContainsAny(s, `\#`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `#`, `\#`).Replace(s)
}

func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "not ok"
}
