package conform

import (
	"io"
	"os"
	"path/filepath"

	"github.com/mcpconform/mcpconform/report"
)

// NewConsole is a run's live console: on stdout, or on stderr when one of
// outs goes to stdout ("-"), so that the report stays parseable; coloured
// only on a terminal and when NO_COLOR is unset.
func NewConsole(stdout, stderr io.Writer, outs report.Outputs, opts ...report.ConsoleOption) *report.Console {
	w := stdout
	if outs.ToStdout() {
		w = stderr
	}
	return report.NewConsole(w, isTerminal(w), opts...)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
}

// TraceIn is a RunOptions.TraceFile that records each host's Playwright
// trace as <dir>/<host>/trace.zip.
func TraceIn(dir string) func(host string) string {
	return func(host string) string { return filepath.Join(dir, host, "trace.zip") }
}

// VideoIn is where --video records each host's page: a WebM per host
// under the evidence directory.
func VideoIn(dir string) func(host string) string {
	return func(host string) string { return filepath.Join(dir, host, "video.webm") }
}
