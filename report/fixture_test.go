package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// t0 and every duration below are fixed so the golden files are stable.
var t0 = time.Date(2026, 9, 30, 10, 0, 0, 0, time.UTC)

func meta(id string, clause protocol.Clause, ed protocol.Edition, ref string) protocol.TestMeta {
	return protocol.TestMeta{ID: id, Name: id, Clause: clause, Edition: ed, SpecRef: ref, Vantage: protocol.VantageInView}
}

// referenceHost covers every status and the awkward messages: ANSI colour
// and hyperlink codes, raw control characters, a CDATA terminator, "#" and
// "\", CR LF and multi-line text.
func referenceHost() HostRun {
	ms := time.Millisecond
	stable, draft := protocol.EditionStable, protocol.EditionDraft
	return HostRun{
		Host:         "reference",
		HostName:     "mcp-reference-host",
		HostVersion:  "0.4.1",
		Browser:      "chromium 140.0.7339.16",
		Platform:     "linux/amd64",
		SuiteVersion: "0.3.0",
		StartedAt:    t0,
		Duration:     42*time.Second + 517*ms,
		Cases: []Case{
			{TestMeta: meta("lifecycle/initialize-capabilities", protocol.ClauseMust, stable, "apps.mdx#initialize"),
				Status: protocol.StatusPass, Duration: 412 * ms},
			{TestMeta: meta("display/theme-toggle", protocol.ClauseMust, stable, "apps.mdx#theming"),
				Status:   protocol.StatusFail,
				Message:  "\x1b[31mexpected\x1b[0m theme \"dark\", got <light> & \x00\x07bell\x7f \x1b]8;;https://example.test\x07link\x1b]8;;\x07 ]]> end",
				Duration: 1234 * ms},
			{TestMeta: meta("display/host-context-changed", protocol.ClauseShould, stable, "apps.mdx#host-context"),
				Status:   protocol.StatusTimeout,
				Message:  "no hostcontextchanged within 5000ms\r\nlast event: ui/initialize\n  at step 3\n",
				Duration: 31002 * ms},
			{TestMeta: meta("tools/call-result", protocol.ClauseMustNot, draft, "draft/apps.mdx#call"),
				Status:   protocol.StatusError,
				Message:  "page crashed # see issue #12 in C:\\logs\\run.txt",
				Duration: 87 * ms},
			{TestMeta: meta("visibility/app-tool-hidden", protocol.ClauseMust, stable, "apps.mdx#visibility"),
				Status:   protocol.StatusSkip,
				Message:  "unsupported: readModelToolList",
				Duration: 10 * ms},
			{TestMeta: meta("visibility/needs-second-host", protocol.ClauseMay, draft, ""),
				Status:   protocol.StatusSkip,
				Message:  "needs host #2 \\ not configured\nsee --hosts",
				Duration: 0},
			{TestMeta: meta("resources/csp-default", protocol.ClauseMust, stable, "apps.mdx#csp"),
				Status:   protocol.StatusNotRun,
				Message:  "depends on lifecycle/initialize-capabilities",
				Duration: 0},
			{TestMeta: meta("lifecycle/teardown", protocol.ClauseInfo, stable, "apps.mdx#teardown"),
				Status: protocol.StatusPass, Duration: 1500 * ms},
		},
	}
}

// brokenHost stopped for an infrastructure reason: its unreached cases are
// NOTRUN, one with and one without its own message.
func brokenHost() HostRun {
	ms := time.Millisecond
	stable := protocol.EditionStable
	return HostRun{
		Host:         "other",
		Browser:      "firefox 141.0",
		Platform:     "linux/amd64",
		SuiteVersion: "0.3.0",
		StartedAt:    t0.Add(43 * time.Second),
		Duration:     5 * time.Second,
		Infra:        "browser exited: \x1b[1mSIGKILL\x1b[0m\nafter 5s",
		Cases: []Case{
			{TestMeta: meta("lifecycle/initialize-capabilities", protocol.ClauseMust, stable, "apps.mdx#initialize"),
				Status: protocol.StatusPass, Duration: 650 * ms},
			{TestMeta: meta("display/theme-toggle", protocol.ClauseMust, stable, "apps.mdx#theming"),
				Status: protocol.StatusNotRun},
			{TestMeta: meta("display/host-context-changed", protocol.ClauseShould, stable, "apps.mdx#host-context"),
				Status: protocol.StatusNotRun, Message: "not run: suite stalled"},
		},
	}
}

func oneHostRun() Run {
	return Run{Tool: "mcpconform", Version: "1.2.3", StartedAt: t0, Duration: 42*time.Second + 600*time.Millisecond,
		Hosts: []HostRun{referenceHost()}}
}

func twoHostRun() Run {
	return Run{Tool: "mcpconform", Version: "1.2.3", StartedAt: t0, Duration: 48 * time.Second,
		Hosts: []HostRun{referenceHost(), brokenHost()}}
}

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (run go test ./report -update if intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
