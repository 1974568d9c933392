package report

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func consoleOutput(color bool) []byte {
	return consoleRun(twoHostRun(), color)
}

func consoleRun(run Run, color bool, opts ...ConsoleOption) []byte {
	var buf bytes.Buffer
	c := NewConsole(&buf, color, opts...)
	for _, h := range run.Hosts {
		for _, tc := range h.Cases {
			c.Case(h.Host, tc)
		}
	}
	c.Summary(run)
	return buf.Bytes()
}

// containsAll fails the test for each of wants that out (what) lacks.
func containsAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// TestConsoleQuiet prints only what fails the run: failures not covered by
// the baseline and stale entries, and still the summary.
func TestConsoleQuiet(t *testing.T) {
	out := string(consoleRun(baselinedRun(), false, ConsoleQuiet(true)))
	containsAll(t, "quiet output", out, "FAIL  resources/csp-default", "FAIL  resources/csp-declared", "STALE  lifecycle/teardown",
		"2 passed, 2 failed, 2 skipped, 2 expected failures, 1 flaky allowed, 1 stale\n")
	for _, not := range []string{"PASS  ", "XFAIL  ", "FLAKY  ", "SKIP  ", "ABSENT "} {
		if strings.Contains("\n"+out, "\n"+not) {
			t.Errorf("quiet output has a %q line:\n%s", not, out)
		}
	}
}

// TestConsoleVerbose adds clause, reason code, baseline and evidence to each
// case, and host metadata and absent entries before the summary.
func TestConsoleVerbose(t *testing.T) {
	out := string(consoleRun(baselinedRun(), false, ConsoleVerbose(true)))
	containsAll(t, "verbose output", out,
		"      clause: MUST (2026-01-26 apps.mdx#theming)\n",
		"      evidence: /ci/project/mcpconform-results/claude-web/display-theme-toggle.png\n",
		"      reason: unsupported:readModelToolList\n",
		"      baseline allows: PASS, TIMEOUT\n",
		"HOST claude-web: host claude-ai 2026.09.1, browser chromium 140.0.7339.16, platform linux/amd64, suite 0.3.0\n",
		"ABSENT claude-web display/fullscreen: baseline entry matched no check (tolerated)\n")
	if strings.Contains(string(consoleRun(baselinedRun(), false)), "evidence:") {
		t.Error("evidence printed without verbose")
	}
}

var summaryLine = regexp.MustCompile(`^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped(, [0-9]+ [a-z ]+)*$`)

// TestConsoleSummaryLine checks what CI relies on: the last line has the
// summary form, no other line does, and colour never touches it.
func TestConsoleSummaryLine(t *testing.T) {
	for _, color := range []bool{false, true} {
		lines := strings.Split(strings.TrimSuffix(string(consoleOutput(color)), "\n"), "\n")
		last := lines[len(lines)-1]
		// The OPTIONAL case (a MAY not implemented) is counted apart, never
		// as a failure; the BLOCKED one is skipped.
		if last != "3 passed, 3 failed, 6 skipped, 1 optional not implemented" {
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
