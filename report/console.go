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
	mu    sync.Mutex
	w     io.Writer
	color bool
	host  string // host of the last Case, to print a heading when it changes
}

// NewConsole returns a Console writing to w, with ANSI colour only when color
// is true (the caller decides, e.g. from a TTY check or NO_COLOR).
func NewConsole(w io.Writer, color bool) *Console {
	return &Console{w: w, color: color}
}

// Case prints one finished test, e.g. "PASS  lifecycle/tool-input  (12ms)",
// and for anything but PASS its message, indented, on the following lines.
// A heading line with the host name comes first whenever the host differs
// from the previous call, so results stay attributable when several hosts
// run, even in parallel.
func (c *Console) Case(host string, tc Case) {
	var b strings.Builder
	c.mu.Lock()
	defer c.mu.Unlock()
	if host != c.host {
		b.WriteString(c.paint(sgrBold, "["+oneLine(sanitize(host))+"]"))
		b.WriteByte('\n')
		c.host = host
	}
	status := sanitize(string(tc.Status))
	fmt.Fprintf(&b, "%s  %s  (%s)\n", c.paint(statusColor(tc.Status), status),
		oneLine(sanitize(tc.ID)), consoleDuration(tc.Duration))
	if tc.Status != protocol.StatusPass {
		// Messages are sanitised even with colour on: their own escape codes
		// (Playwright's) could leave the terminal in a colour, and a CR could
		// overwrite the status line.
		if msg := strings.TrimSpace(sanitize(tc.Message)); msg != "" {
			for _, l := range strings.Split(msg, "\n") {
				b.WriteString(strings.TrimRight(messageIndent+l, " \t"))
				b.WriteByte('\n')
			}
		}
	}
	io.WriteString(c.w, b.String())
}

// Summary prints why any host stopped early, then the final line from the
// package-level Summary. That line is never coloured and is the only line of
// its form, because CI parses it.
func (c *Console) Summary(r Run) {
	var b strings.Builder
	for _, h := range r.Hosts {
		if infra := oneLine(sanitize(h.Infra)); infra != "" {
			fmt.Fprintf(&b, "%s %s: %s\n", c.paint(sgrRed, "INFRA"), oneLine(sanitize(h.Host)), infra)
		}
	}
	b.WriteString(Summary(r.Count()))
	b.WriteByte('\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	io.WriteString(c.w, b.String())
}

// Summary returns the line CI parses, "N passed, N failed, N skipped",
// without a newline. Failed counts FAIL, TIMEOUT and ERROR; skipped counts
// SKIP and NOTRUN.
func Summary(c Counts) string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped",
		c.Passed, c.Failed+c.TimedOut+c.Errored, c.Skipped+c.NotRun)
}

func (c *Console) paint(sgr, s string) string {
	if !c.color || sgr == "" {
		return s
	}
	return sgr + s + sgrReset
}

func statusColor(s protocol.Status) string {
	switch s {
	case protocol.StatusPass:
		return sgrGreen
	case protocol.StatusSkip, protocol.StatusNotRun:
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
