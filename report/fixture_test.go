package report

import (
	"encoding/json"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// t0 and every duration below are fixed so the golden files are stable.
var t0 = time.Date(2026, 9, 30, 10, 0, 0, 0, time.UTC)

func meta(id string, clause protocol.Clause, ed protocol.Edition, ref string) protocol.TestMeta {
	return protocol.TestMeta{ID: id, Name: id, Clause: clause, Edition: ed, SpecRef: ref, Vantage: protocol.VantageInView}
}

// The checks every fixture host ran.
var (
	initMeta    = meta("lifecycle/initialize-capabilities", protocol.ClauseMust, protocol.EditionStable, "apps.mdx#initialize")
	themeMeta   = meta("display/theme-toggle", protocol.ClauseMust, protocol.EditionStable, "apps.mdx#theming")
	contextMeta = meta("display/host-context-changed", protocol.ClauseShould, protocol.EditionStable, "apps.mdx#host-context")
)

// chromiumHost is a fixture host's metadata: a Chromium on linux/amd64
// with suite 0.3.0.
func chromiumHost(host, name, version string, start time.Time, d time.Duration) HostRun {
	return HostRun{Host: host, HostName: name, HostVersion: version, Browser: "chromium 140.0.7339.16",
		Platform: "linux/amd64", SuiteVersion: "0.3.0", StartedAt: start, Duration: d}
}

// referenceHost covers every status and the awkward messages: ANSI colour
// and hyperlink codes, raw control characters, a CDATA terminator, "#" and
// "\", CR LF and multi-line text.
func referenceHost() HostRun {
	ms := time.Millisecond
	stable, draft := protocol.EditionStable, protocol.EditionDraft
	h := chromiumHost("reference", "mcp-reference-host", "0.4.1", t0, 42*time.Second+517*ms)
	h.HostInfo = json.RawMessage(`{"name":"mcp-reference-host","version":"0.4.1"}`)
	h.Capabilities = json.RawMessage(`{"openLinks":{},"serverTools":{"listChanged":true},"sandbox":{"csp":{}}}`)
	h.Context = json.RawMessage(`{"theme":"light","displayMode":"inline","locale":"en-US"}`)
	h.Cases = []Case{
		{TestMeta: initMeta, Status: protocol.StatusPass, Duration: 412 * ms},
		{TestMeta: themeMeta,
			Status:   protocol.StatusFail,
			Message:  "\x1b[31mexpected\x1b[0m theme \"dark\", got <light> & \x00\x07bell\x7f \x1b]8;;https://example.test\x07link\x1b]8;;\x07 ]]> end",
			Duration: 1234 * ms,
			Evidence: []string{"/ci/project/mcpconform-results/reference/display-theme-toggle.png", "/ci/project/mcpconform-results/reference/display-theme-toggle.html"}},
		{TestMeta: contextMeta,
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
		{TestMeta: meta("context/theme-change-notifies", protocol.ClauseMay, stable, "apps.mdx#host-context-changed"),
			Status:   protocol.StatusOptional,
			Message:  "no host-context-changed within 5000ms of a theme toggle # MAY",
			Duration: 5003 * ms},
		{TestMeta: withRequires(meta("display/theme-variables", protocol.ClauseShould, stable, "apps.mdx#theming"), "display/theme-toggle"),
			Status:    protocol.StatusBlocked,
			Message:   "blocked: no theme change reached the View (judged by display/theme-toggle) [spec apps.mdx#theming: \"Host SHOULD ...\"]",
			BlockedBy: []string{"display/theme-toggle"},
			Duration:  2 * ms},
	}
	return h
}

func withRequires(m protocol.TestMeta, ids ...string) protocol.TestMeta {
	m.Requires = ids
	return m
}

// brokenHost stopped for an infrastructure reason: its unreached cases are
// NOTRUN, one with and one without its own message.
func brokenHost() HostRun {
	h := chromiumHost("other", "", "", t0.Add(43*time.Second), 5*time.Second)
	h.Browser = "firefox 141.0"
	h.Infra = "browser exited: \x1b[1mSIGKILL\x1b[0m\nafter 5s"
	h.Cases = []Case{
		{TestMeta: initMeta, Status: protocol.StatusPass, Duration: 650 * time.Millisecond},
		{TestMeta: themeMeta, Status: protocol.StatusNotRun},
		{TestMeta: contextMeta, Status: protocol.StatusNotRun, Message: "not run: suite stalled"},
	}
	return h
}

// baselinedHost has a baseline entry on most cases, covering every outcome:
// expected failures (FAIL, TIMEOUT), an allowed flaky TIMEOUT, a flaky check
// that passed, a stale entry, a regression with and without an entry, a
// skipped check with an entry, and two entries that matched no case.
func baselinedHost() HostRun {
	ms := time.Millisecond
	stable, draft := protocol.EditionStable, protocol.EditionDraft
	expect := func(id, reason string, line int, allow ...protocol.Status) *Expectation {
		return &Expectation{ID: id, Reason: reason, Allow: allow, Line: line}
	}
	pass, timeout := protocol.StatusPass, protocol.StatusTimeout
	h := chromiumHost("claude-web", "claude-ai", "2026.09.1", t0.Add(50*time.Second), 20*time.Second)
	h.Cases = []Case{
		{TestMeta: initMeta, Status: protocol.StatusPass, Duration: 300 * ms},
		{TestMeta: themeMeta,
			Status: protocol.StatusFail, Message: "no ui/notifications/host-context-changed after the theme toggle",
			Duration: 5001 * ms, Expect: expect("display/theme-toggle", "host#12: theme is fixed per conversation", 3),
			Evidence: []string{"/ci/project/mcpconform-results/claude-web/display-theme-toggle.png"}},
		{TestMeta: contextMeta,
			Status: protocol.StatusTimeout, Message: "no hostcontextchanged within 5000ms",
			Duration: 5000 * ms, Expect: expect("display/host-context-changed", "", 4)},
		{TestMeta: meta("tools/call-result", protocol.ClauseMust, stable, "apps.mdx#call"),
			Status: protocol.StatusTimeout, Message: "tools/call answered after 10s",
			Duration: 10000 * ms, Expect: expect("tools/call-result", "slow under load", 5, pass, timeout)},
		{TestMeta: meta("tools/call-args", protocol.ClauseMust, stable, "apps.mdx#call"),
			Status: protocol.StatusPass, Duration: 40 * ms,
			Expect: expect("tools/call-args", "sometimes times out", 9, pass, timeout)},
		{TestMeta: meta("lifecycle/teardown", protocol.ClauseMust, stable, "apps.mdx#teardown"),
			Status: protocol.StatusPass, Duration: 20 * ms,
			Expect: expect("lifecycle/teardown", "fixed in 2026.09", 13)},
		{TestMeta: meta("resources/csp-default", protocol.ClauseMust, stable, "apps.mdx#csp"),
			Status: protocol.StatusFail, Message: "img-src allowed https://evil.test",
			Duration: 150 * ms, Evidence: []string{"/ci/project/mcpconform-results/claude-web/csp.txt"}},
		{TestMeta: meta("resources/csp-declared", protocol.ClauseMust, draft, "draft/apps.mdx#csp"),
			Status: protocol.StatusFail, Message: "connect-src ignored",
			Duration: 160 * ms, Expect: expect("resources/csp-declared", "flaky", 15, pass, timeout)},
		{TestMeta: meta("visibility/app-tool-hidden", protocol.ClauseMust, stable, "apps.mdx#visibility"),
			Status: protocol.StatusSkip, Message: "unsupported: readModelToolList",
			Duration: 1 * ms, Expect: expect("visibility/app-tool-hidden", "cannot read the tool list", 17)},
		{TestMeta: withRequires(meta("display/theme-variables", protocol.ClauseShould, stable, "apps.mdx#theming"), "display/theme-toggle"),
			Status: protocol.StatusBlocked, Message: "blocked: no theme change reached the View (judged by display/theme-toggle)",
			BlockedBy: []string{"display/theme-toggle"}, Duration: 2 * ms,
			Expect: expect("display/theme-variables", "fails with the theme toggle", 18)},
	}
	h.Absent = []Expectation{
		{ID: "display/fullscreen", Reason: "not selected", Line: 19},
		{ID: "removed/check", Line: 20},
	}
	return h
}

// fullRun has three hosts: every status, an infrastructure stop, and every
// baseline outcome.
func fullRun() Run {
	return Run{Tool: "mcpconform", Version: "1.2.3", StartedAt: t0, Duration: 71 * time.Second,
		Expectations: ".mcpconform/expectations.yml",
		Hosts:        []HostRun{referenceHost(), brokenHost(), baselinedHost()}}
}

func baselinedRun() Run {
	return Run{Tool: "mcpconform", Version: "1.2.3", StartedAt: t0.Add(50 * time.Second), Duration: 21 * time.Second,
		Expectations: ".mcpconform/expectations.yml", Hosts: []HostRun{baselinedHost()}}
}

func oneHostRun() Run {
	return Run{Tool: "mcpconform", Version: "1.2.3", StartedAt: t0, Duration: 42*time.Second + 600*time.Millisecond,
		Hosts: []HostRun{referenceHost()}}
}

func twoHostRun() Run {
	return Run{Tool: "mcpconform", Version: "1.2.3", StartedAt: t0, Duration: 48 * time.Second,
		Hosts: []HostRun{referenceHost(), brokenHost()}}
}
