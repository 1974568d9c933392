package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// reason is the sanitised explanation every format shows for a case that did
// not pass. A failure never has an empty reason, because some consumers show
// only the reason (mikepenz falls back to the test name, which reads as if
// the test passed). A NOTRUN without a message borrows the host's Infra,
// since that is why the case was not reached.
func reason(h HostRun, c Case) string {
	msg := strings.TrimSpace(sanitize(c.Message))
	if c.Status == protocol.StatusBlocked {
		return blocked(c, msg)
	}
	if msg != "" {
		return msg
	}
	switch c.Status {
	case protocol.StatusFail:
		return "failed"
	case protocol.StatusTimeout:
		return "timed out"
	case protocol.StatusError:
		return "harness error"
	case protocol.StatusNotRun:
		return strings.TrimSpace(sanitize(h.Infra))
	case protocol.StatusOptional:
		return "the optional feature is not implemented"
	case protocol.StatusPass, protocol.StatusSkip:
		return ""
	}
	return fmt.Sprintf("unknown status %q", sanitize(string(c.Status)))
}

// notRun prefixes a NOTRUN reason so it reads differently from a SKIP in
// tools that show both as skipped. A reason that already says so is kept.
func notRun(reason string) string {
	switch {
	case reason == "":
		return "not run"
	case strings.HasPrefix(strings.ToLower(reason), "not run"):
		return reason
	}
	return "not run: " + reason
}

// isFailure reports whether a status makes the host fail. Unknown statuses
// count as failures: a report must not turn a garbled result into a pass.
func isFailure(s protocol.Status) bool {
	switch s {
	case protocol.StatusPass, protocol.StatusSkip, protocol.StatusNotRun, protocol.StatusOptional, protocol.StatusBlocked:
		return false
	}
	return true
}

// optional prefixes an OPTIONAL reason with "optional, not implemented" so
// every format says what the outcome is, even where it is shown as skipped
// (JUnit). A reason that already says so is kept.
func optional(reason string) string {
	const p = "optional, not implemented"
	switch {
	case reason == "":
		return p
	case strings.HasPrefix(strings.ToLower(reason), p):
		return reason
	}
	return p + ": " + reason
}

// blocked words a BLOCKED reason so that every format, even one that shows
// it as a plain skip, names the blocking check first: "blocked by <ids>:
// <what was missing>". The suite's own "blocked: " prefix and "(judged by
// <id>)" are dropped as repeating it.
func blocked(c Case, reason string) string {
	by := oneLine(sanitize(strings.Join(c.BlockedBy, ", ")))
	if by == "" {
		by = "another check"
	}
	rest := strings.TrimSpace(strings.TrimPrefix(reason, "blocked:"))
	for _, b := range c.BlockedBy {
		rest = strings.Replace(rest, " (judged by "+b+")", "", 1)
	}
	if rest == "" {
		return "blocked by " + by
	}
	return "blocked by " + by + ": " + rest
}

// hostDuration is the host's wall time, or the sum of its cases when the
// runner did not record one, so reports never show a zero for real work.
func hostDuration(h HostRun) time.Duration {
	if h.Duration > 0 {
		return h.Duration
	}
	var d time.Duration
	for _, c := range h.Cases {
		d += max(c.Duration, 0)
	}
	return d
}

// secs formats a duration the way JUnit consumers parse it: seconds with
// three decimals ("%.3f", as go-junit-report does). Negative becomes zero.
func secs(d time.Duration) string {
	return fmt.Sprintf("%.3f", max(d, 0).Seconds())
}
