package report

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestMarkdownFailuresFirst checks the order of the rows of a host's table:
// failures, stale entries, expected failures, flaky, skipped; passes only in
// the folded block.
func TestMarkdownFailuresFirst(t *testing.T) {
	buf := render(t, WriteMarkdown, baselinedRun())
	out := buf.String()
	order := []string{
		"`resources/csp-default`", "`resources/csp-declared`", "`lifecycle/teardown`",
		"`display/theme-toggle`", "`display/host-context-changed`", "`tools/call-result`",
		"`visibility/app-tool-hidden`", "<details><summary>2 passed</summary>",
		"`lifecycle/initialize-capabilities`", "`tools/call-args`",
	}
	last := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order:\n%s", s, out)
		}
		last = i
	}
	for _, want := range []string{
		"| ❌ | `resources/csp-default` | MUST | 2026-01-26 apps.mdx\\#csp | FAIL | img-src allowed https://evil.test",
		"FAIL (expected, baseline)", "TIMEOUT (allowed flaky, baseline)", "PASS (stale baseline entry)",
		"SKIP `unsupported:readModelToolList`",
		"2 passed, 2 failed, 2 skipped, 2 expected failures, 1 flaky allowed, 1 stale (1 for unsupported capabilities)",
		"BLOCKED `blocked:display/theme-toggle` | blocked by display/theme-toggle: no theme change reached the View",
		"Baseline entries that matched no check (tolerated): `display/fullscreen`, `removed/check`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestMarkdownEscapes: a hostile message cannot break the table, inject
// HTML, links or images, or mention anyone.
func TestMarkdownEscapes(t *testing.T) {
	run := Run{Hosts: []HostRun{{Host: "h|<b>", Cases: []Case{{
		TestMeta: meta("a/b`|c", protocol.ClauseMust, protocol.EditionStable, "x|y"),
		Status:   protocol.StatusFail,
		Message:  "line one | cell\n<script>alert(1)</script> @octocat ![img](http://x.test/i.png) [link](http://x.test) *em* $x$ \x1b[31mred",
	}}}}}
	buf := render(t, WriteMarkdown, run)
	out := buf.String()
	for _, bad := range []string{"<script>", "@octocat", "![img]", "[link](", "*em*", "$x$", "\x1b", "<b>", "line one | cell"} {
		if strings.Contains(out, bad) {
			t.Errorf("summary contains %q:\n%s", bad, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ❌") {
			// 6 columns: 7 unescaped pipes, "\|" inside code spans excepted.
			if n := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); n != 7 {
				t.Errorf("row has %d cell separators, want 7: %q", n, l)
			}
			if !strings.Contains(l, "line one &#124; cell<br>&lt;script&gt;") {
				t.Errorf("message not escaped as expected: %q", l)
			}
		}
	}
}

// TestMarkdownNeverCountsSkipsAsPasses: a host whose checks were all
// skipped (unsupported) is not shown as passing.
func TestMarkdownNeverCountsSkipsAsPasses(t *testing.T) {
	run := Run{Hosts: []HostRun{{Host: "h", Cases: []Case{
		{TestMeta: meta("a/b", protocol.ClauseMust, "", ""), Status: protocol.StatusSkip, Message: "unsupported: clickTrigger"},
		{TestMeta: meta("a/c", protocol.ClauseMust, "", ""), Status: protocol.StatusNotRun},
	}}}}
	buf := render(t, WriteMarkdown, run)
	out := buf.String()
	if strings.Contains(out, "✅") || !strings.Contains(out, "0 passed, 0 failed, 2 skipped (1 for unsupported capabilities)") {
		t.Errorf("all-skipped host reads as a pass:\n%s", out)
	}
}
