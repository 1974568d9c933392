package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// ANSI SGR codes used when colour is on.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
)

// messageIndent lines a case's message up under its id ("PASS  ").
const messageIndent = "      "

// Console streams results to a terminal or CI log as tests finish. It is
// safe for concurrent use, so hosts may run in parallel; each call writes
// whole lines in one Write, so lines from different hosts never interleave.
//
// Write errors are ignored: the console is a courtesy, and a closed stdout
// must not stop the run or the file reports.
type Console struct {
	mu      sync.Mutex
	w       io.Writer
	color   bool
	quiet   bool
	verbose bool
	host    string // host of the last Case, to print a heading when it changes
}

// ConsoleOption configures a Console.
type ConsoleOption func(*Console)

// ConsoleQuiet, when on, prints only the cases that fail the run (a failure
// not covered by the baseline, or a stale baseline entry), then the summary.
func ConsoleQuiet(on bool) ConsoleOption { return func(c *Console) { c.quiet = on } }

// ConsoleVerbose, when on, adds to every printed case its clause and spec
// reference, its baseline entry and its evidence files, and to the summary
// each host's metadata and the baseline entries that matched no case. It
// combines with ConsoleQuiet: failures only, in full.
func ConsoleVerbose(on bool) ConsoleOption { return func(c *Console) { c.verbose = on } }

// NewConsole returns a Console writing to w, with ANSI colour only when color
// is true (the caller decides, e.g. from a TTY check or NO_COLOR).
func NewConsole(w io.Writer, color bool, opts ...ConsoleOption) *Console {
	c := &Console{w: w, color: color}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Case prints one finished test, e.g. "PASS  lifecycle/tool-input  (12ms)",
// and for anything but a pass its message, indented, on the following lines.
// A case covered by the baseline shows its outcome instead of its status:
// XFAIL (expected failure), FLAKY (allowed flaky status) or STALE (passes,
// but the baseline expects a failure). A heading line with the host name
// comes first whenever the host differs from the previous call, so results
// stay attributable when several hosts run, even in parallel.
func (c *Console) Case(host string, tc Case) {
	o := tc.Outcome()
	if c.quiet && o != OutcomeFail && o != OutcomeStale {
		return
	}
	var b strings.Builder
	c.mu.Lock()
	defer c.mu.Unlock()
	if host != c.host {
		b.WriteString(c.paint(sgrBold, "["+oneLine(sanitize(host))+"]"))
		b.WriteByte('\n')
		c.host = host
	}
	label := sanitize(string(tc.Status))
	switch o {
	case OutcomeExpectedFail:
		label = "XFAIL"
	case OutcomeFlaky:
		label = "FLAKY"
	case OutcomeStale:
		label = "STALE"
	case OutcomeOptional:
		label = "OPTIONAL"
	}
	if tc.Flaky && o == OutcomePass {
		// Passed only on a retry: say so, never a silent pass.
		label = "FLAKY"
	}
	fmt.Fprintf(&b, "%s  %s  (%s)\n", c.paint(outcomeColor(o), label),
		oneLine(sanitize(tc.ID)), consoleDuration(tc.Duration))
	var details []string
	if tc.Status != protocol.StatusPass || tc.Flaky {
		// Messages are sanitised even with colour on: their own escape codes
		// (Playwright's) could leave the terminal in a colour, and a CR could
		// overwrite the status line.
		msg := strings.TrimSpace(sanitize(tc.Message))
		if o == OutcomeOptional {
			msg = optional(msg)
		}
		if tc.Status == protocol.StatusBlocked {
			msg = blocked(tc, msg)
		}
		if msg != "" {
			details = append(details, strings.Split(msg, "\n")...)
		}
	}
	switch o {
	case OutcomeExpectedFail, OutcomeFlaky:
		details = append(details, "baseline: "+baselineReason(tc, "expected failure")+" ("+sanitize(string(tc.Status))+")")
	case OutcomeStale:
		details = append(details, "passes now: remove its baseline entry ("+baselineReason(tc, "expected failure")+")")
	case OutcomeFail:
		if tc.Expect != nil {
			details = append(details, "baseline allows only "+allowList(tc.Expect)+" ("+baselineReason(tc, "known flaky check")+")")
		}
	}
	if c.verbose {
		if tc.Clause != "" {
			line := "clause: " + sanitize(string(tc.Clause))
			if ref := strings.TrimSpace(sanitize(string(tc.Edition)) + " " + sanitize(tc.SpecRef)); ref != "" {
				line += " (" + oneLine(ref) + ")"
			}
			details = append(details, line)
		}
		if code := tc.ReasonCode(); code != "" {
			details = append(details, "reason: "+code)
		}
		if tc.Expect != nil && len(tc.Expect.Allow) > 0 && o != OutcomeFail {
			details = append(details, "baseline allows: "+allowList(tc.Expect))
		}
		for _, e := range tc.Evidence {
			if e = oneLine(sanitize(e)); e != "" {
				details = append(details, "evidence: "+e)
			}
		}
	}
	for _, l := range details {
		b.WriteString(strings.TrimRight(messageIndent+l, " \t"))
		b.WriteByte('\n')
	}
	io.WriteString(c.w, b.String())
}

// Summary prints why any host stopped early, with several hosts how many
// of each host's checks were judged ("JUDGED host: judged N of M …"), the
// run's Judged line ("judged N of M (PASS n, FAIL n); …"), then the final
// line, the run's Tally ("N passed, N failed, N skipped", plus expected failures,
// flaky and stale counts when a baseline produced any). That line is never
// coloured and is the only line of its form, because CI parses it. In
// verbose mode, each host's metadata and the baseline entries that matched
// no case come first.
func (c *Console) Summary(r Run) {
	var b strings.Builder
	for _, h := range r.Hosts {
		host := oneLine(sanitize(h.Host))
		if c.verbose {
			var meta []string
			for _, kv := range [][2]string{
				{"host", strings.TrimSpace(h.HostName + " " + h.HostVersion)},
				{"browser", h.Browser}, {"platform", h.Platform}, {"suite", h.SuiteVersion},
			} {
				if v := oneLine(sanitize(kv[1])); v != "" {
					meta = append(meta, kv[0]+" "+v)
				}
			}
			if len(meta) > 0 {
				fmt.Fprintf(&b, "%s %s: %s\n", c.paint(sgrBold, "HOST"), host, strings.Join(meta, ", "))
			}
			for _, e := range h.Absent {
				fmt.Fprintf(&b, "%s %s %s: baseline entry matched no check (tolerated)\n",
					c.paint(sgrYellow, "ABSENT"), host, oneLine(sanitize(e.ID)))
			}
		}
		if infra := oneLine(sanitize(h.Infra)); infra != "" {
			fmt.Fprintf(&b, "%s %s: %s\n", c.paint(sgrRed, "INFRA"), host, infra)
		}
		if len(r.Hosts) > 1 {
			fmt.Fprintf(&b, "%s %s: %s\n", c.paint(sgrBold, "JUDGED"), host, h.Judged())
		}
	}
	b.WriteString(r.Judged().String())
	b.WriteByte('\n')
	b.WriteString(r.Tally().String())
	b.WriteByte('\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	io.WriteString(c.w, b.String())
}

// Summary returns the line CI parses, "N passed, N failed, N skipped",
// without a newline. Failed counts FAIL, TIMEOUT and ERROR; skipped counts
// SKIP, NOTRUN and BLOCKED.
func Summary(c Counts) string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped",
		c.Passed, c.Failed+c.TimedOut+c.Errored, c.Skipped+c.NotRun+c.Blocked)
}

func (c *Console) paint(sgr, s string) string {
	if !c.color || sgr == "" {
		return s
	}
	return sgr + s + sgrReset
}

func outcomeColor(o Outcome) string {
	switch o {
	case OutcomePass:
		return sgrGreen
	case OutcomeSkipped, OutcomeExpectedFail, OutcomeFlaky, OutcomeOptional:
		return sgrYellow
	}
	return sgrRed
}

// consoleDuration is short and human: milliseconds below a second, else
// seconds with one decimal.
func consoleDuration(d time.Duration) string {
	d = max(d, 0)
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
