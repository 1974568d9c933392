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
// when any of its points is not ok, with a YAML block holding the host's
// tally), so every harness sees one plan.
//
// The plan comes first so a harness knows the count before any result.
// SKIP and NOTRUN are "ok ... # SKIP", as TAP has no other non-failing
// outcome; FAIL, TIMEOUT and ERROR are "not ok" with a YAML diagnostic block.
// A host's Infra is written as a comment: it is information for people, and
// the exit code, not the stream, carries that verdict.
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
				fmt.Fprintf(&b, "  ---\n  message: %s\n", strconv.Quote(Summary(h.Count())))
				if infra := strings.TrimSpace(sanitize(h.Infra)); infra != "" {
					fmt.Fprintf(&b, "  infra: %s\n", strconv.Quote(infra))
				}
				b.WriteString("  ...\n")
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeTAPHost writes one host's stream with every line prefixed by indent,
// and reports whether every point in it is ok.
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
		switch c.Status {
		case protocol.StatusPass:
			fmt.Fprintf(b, "%sok %d - %s\n", indent, n, desc)
		case protocol.StatusSkip:
			fmt.Fprintf(b, "%sok %d - %s # SKIP%s\n", indent, n, desc, tapReason(why))
		case protocol.StatusNotRun:
			fmt.Fprintf(b, "%sok %d - %s # SKIP%s\n", indent, n, desc, tapReason(notRun(why)))
		default:
			allOK = false
			fmt.Fprintf(b, "%snot ok %d - %s\n", indent, n, desc)
			writeTAPYAML(b, indent+"  ", why, c)
		}
	}
	return allOK
}

// writeTAPYAML writes the diagnostic block of a failed point. Every string is
// double-quoted with strconv.Quote: its escapes (\n, \", \\, \xNN, \uNNNN)
// are all valid YAML, so a multi-line or hostile message stays on one line
// and cannot end the block early. Quoting also keeps the edition a string;
// unquoted, YAML 1.1 parsers read 2026-01-26 as a date.
func writeTAPYAML(b *bytes.Buffer, indent, why string, c Case) {
	q := func(s string) string { return strconv.Quote(sanitize(s)) }
	fmt.Fprintf(b, "%s---\n", indent)
	fmt.Fprintf(b, "%smessage: %s\n", indent, strconv.Quote(why))
	fmt.Fprintf(b, "%sstatus: %s\n", indent, q(string(c.Status)))
	fmt.Fprintf(b, "%sclause: %s\n", indent, q(string(c.Clause)))
	fmt.Fprintf(b, "%sedition: %s\n", indent, q(string(c.Edition)))
	fmt.Fprintf(b, "%sspec_ref: %s\n", indent, q(c.SpecRef))
	fmt.Fprintf(b, "%sduration_ms: %d\n", indent, max(c.Duration, 0).Milliseconds())
	fmt.Fprintf(b, "%s...\n", indent)
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
