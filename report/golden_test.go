package report

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/testkit/golden"
)

// TestGolden: every format renders each fixture run as its golden file
// (testdata/<name>.golden; go test -update rewrites them).
func TestGolden(t *testing.T) {
	writer := func(write func(*testing.T, Run) []byte, r Run) func(*testing.T) []byte {
		return func(t *testing.T) []byte { return write(t, r) }
	}
	tap := func(t *testing.T, r Run) []byte { return render(t, WriteTAP, r).Bytes() }
	junit := func(opts JUnitOptions) func(*testing.T, Run) []byte {
		return func(t *testing.T, r Run) []byte { return renderJUnit(t, r, opts).Bytes() }
	}
	for _, g := range []struct {
		name string
		out  func(*testing.T) []byte
	}{
		{"console_plain", func(*testing.T) []byte { return consoleOutput(false) }},
		{"console_color", func(*testing.T) []byte { return consoleOutput(true) }},
		{"console_baseline", func(*testing.T) []byte { return consoleRun(fullRun(), false) }},
		{"console_verbose", func(*testing.T) []byte { return consoleRun(fullRun(), false, ConsoleVerbose(true)) }},
		{"console_quiet", func(*testing.T) []byte { return consoleRun(fullRun(), false, ConsoleQuiet(true)) }},
		{"results_json", writer(func(t *testing.T, r Run) []byte { return render(t, WriteJSON, r).Bytes() }, fullRun())},
		{"summary_md", writer(func(t *testing.T, r Run) []byte { return render(t, WriteMarkdown, r).Bytes() }, fullRun())},
		{"junit", writer(junit(JUnitOptions{}), twoHostRun())},
		// Three hosts with every baseline outcome, attachments with
		// absolute paths (Jenkins).
		{"junit_baseline", writer(junit(JUnitOptions{}), fullRun())},
		// Attachment paths relative to --attachments-root (GitLab).
		{"junit_gitlab", writer(junit(JUnitOptions{AttachmentsRoot: "/ci/project"}), baselinedRun())},
		{"tap_one_host", writer(tap, oneHostRun())},
		{"tap_two_hosts", writer(tap, twoHostRun())},
		{"tap_baseline", writer(tap, baselinedRun())},
		{"tap_three_hosts", writer(tap, fullRun())},
	} {
		t.Run(g.name, func(t *testing.T) { golden.Check(t, g.name, g.out(t)) })
	}
}
