package report

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func consoleOutput(color bool) []byte {
	var buf bytes.Buffer
	c := NewConsole(&buf, color)
	run := twoHostRun()
	for _, h := range run.Hosts {
		for _, tc := range h.Cases {
			c.Case(h.Host, tc)
		}
	}
	c.Summary(run)
	return buf.Bytes()
}

func TestConsoleGoldenPlain(t *testing.T) { golden(t, "console_plain", consoleOutput(false)) }
func TestConsoleGoldenColor(t *testing.T) { golden(t, "console_color", consoleOutput(true)) }

var summaryLine = regexp.MustCompile(`^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$`)

// TestConsoleSummaryLine checks what CI relies on: the last line has the
// summary form, no other line does, and colour never touches it.
func TestConsoleSummaryLine(t *testing.T) {
	for _, color := range []bool{false, true} {
		lines := strings.Split(strings.TrimSuffix(string(consoleOutput(color)), "\n"), "\n")
		last := lines[len(lines)-1]
		if last != "3 passed, 3 failed, 5 skipped" {
			t.Errorf("color=%v: last line %q", color, last)
		}
		for _, l := range lines[:len(lines)-1] {
			if summaryLine.MatchString(l) {
				t.Errorf("color=%v: another line looks like the summary: %q", color, l)
			}
		}
		if !color && strings.Contains(strings.Join(lines, "\n"), "\x1b") {
			t.Error("escape codes with colour off")
		}
	}
}

func TestSummary(t *testing.T) {
	c := Counts{Passed: 1, Failed: 2, TimedOut: 3, Skipped: 4, NotRun: 5, Errored: 6}
	if got, want := Summary(c), "1 passed, 11 failed, 9 skipped"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}

// TestConsoleConcurrent runs under -race and checks lines stay whole.
func TestConsoleConcurrent(t *testing.T) {
	var buf bytes.Buffer
	c := NewConsole(&buf, false)
	var wg sync.WaitGroup
	for _, h := range twoHostRun().Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tc := range h.Cases {
				c.Case(h.Host, tc)
			}
		}()
	}
	wg.Wait()
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "(") && !regexp.MustCompile(`^[A-Z]+  \S+  \([0-9.]+m?s\)$`).MatchString(l) {
			t.Errorf("torn line %q", l)
		}
	}
}
