package conform

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/report"
)

// The console leaves stdout to a report written there.
func TestNewConsoleMovesToStderrForAStdoutReport(t *testing.T) {
	for _, c := range []struct {
		outs       report.Outputs
		wantStderr bool
	}{
		{report.OutputsOf(map[string]string{"junit": "x.xml"}), false},
		{report.OutputsOf(map[string]string{"junit": "x.xml", "tap": "-"}), true},
	} {
		var stdout, stderr bytes.Buffer
		NewConsole(&stdout, &stderr, c.outs).Summary(report.Run{})
		if got := stderr.Len() > 0; got != c.wantStderr || (stdout.Len() > 0) == c.wantStderr {
			t.Errorf("outputs %v: stdout %q, stderr %q", c.outs, stdout.String(), stderr.String())
		}
		if strings.Contains(stdout.String()+stderr.String(), "\x1b[") {
			t.Errorf("colour on a buffer: %q", stdout.String()+stderr.String())
		}
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || isTerminal(&bytes.Buffer{}) {
		t.Error("a regular file or a buffer counts as a terminal")
	}
}

func TestTraceIn(t *testing.T) {
	if got, want := TraceIn("ev")("claude"), filepath.Join("ev", "claude", "trace.zip"); got != want {
		t.Errorf("TraceIn = %q, want %q", got, want)
	}
}

func TestSoakLog(t *testing.T) {
	var b bytes.Buffer
	SoakLog(&b, 1)(1)
	if b.Len() > 0 {
		t.Errorf("one pass printed %q", b.String())
	}
	SoakLog(&b, 3)(2)
	if got := b.String(); !strings.HasPrefix(got, "soak 2/3: ") || !strings.Contains(got, "goroutines") || !strings.HasSuffix(got, "\n") {
		t.Errorf("soak line %q", got)
	}
}
