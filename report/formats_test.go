package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// Every format in the table writes what its own writer writes, to a file
// or to stdout; a reports directory gets every format under its file name.
func TestWriteByFormatName(t *testing.T) {
	run := fullRun()
	dir := t.TempDir()
	var stdout bytes.Buffer
	outs := Outputs{"junit": filepath.Join(dir, "sub", "j.xml"), "tap": Stdout, "markdown": filepath.Join(dir, "s.md")}
	if err := Write(outs, run, Options{}, &stdout); err != nil {
		t.Fatal(err)
	}
	var tap bytes.Buffer
	if err := WriteTAP(&tap, run); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != tap.String() {
		t.Errorf("stdout is not the TAP report:\n%s", stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "sub", "j.xml"))
	if err != nil || !strings.Contains(string(b), "<testsuites") {
		t.Errorf("junit file: %v %.80s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.json")); err == nil {
		t.Error("a format not asked for was written")
	}
	if !outs.ToStdout() || (Outputs{"json": "x"}).ToStdout() {
		t.Error("ToStdout")
	}

	all := t.TempDir()
	if err := Write(InDir(all), run, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"junit.xml", "results.tap", "results.json", "summary.md", "report.html"} {
		if st, err := os.Stat(filepath.Join(all, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := strings.Join(FormatNames(), ","); got != "junit,tap,json,markdown,html" {
		t.Errorf("formats %s", got)
	}
}

func TestWriteRefusesTwoStdoutsAndUnknownFormats(t *testing.T) {
	var stdout bytes.Buffer
	err := Write(Outputs{"tap": Stdout, "json": Stdout}, fullRun(), Options{}, &stdout)
	if err == nil || !strings.Contains(err.Error(), "only one report can go to stdout") || stdout.Len() > 0 {
		t.Errorf("two stdouts: %v, wrote %d bytes", err, stdout.Len())
	}
	if err := Write(Outputs{"pdf": "x.pdf"}, fullRun(), Options{}, &stdout); err == nil || !strings.Contains(err.Error(), `unknown report format "pdf"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// A failed write leaves no partial file behind and does not stop the
// other reports.
func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "s.md")
	err := Write(Outputs{"json": filepath.Join(blocker, "r.json"), "markdown": md}, fullRun(), Options{}, nil)
	if err == nil {
		t.Fatal("writing under a file must fail")
	}
	if _, err := os.Stat(md); err != nil {
		t.Errorf("the other report was not written: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".mcpconform-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestGatingDropsOnlyLenientFailures(t *testing.T) {
	c := func(id string, cl protocol.Clause, st protocol.Status) Case {
		return Case{TestMeta: protocol.TestMeta{ID: id, Clause: cl}, Status: st}
	}
	run := Run{Hosts: []HostRun{{Host: "h", Cases: []Case{
		c("a", protocol.ClauseMust, protocol.StatusFail), c("b", protocol.ClauseShould, protocol.StatusFail),
		c("c", protocol.ClauseMay, protocol.StatusTimeout), c("d", protocol.ClauseShouldNot, protocol.StatusPass),
	}}}}
	if g := Gating(run, true); len(g.Hosts[0].Cases) != 4 {
		t.Errorf("failOnShould keeps every case, got %d", len(g.Hosts[0].Cases))
	}
	g := Gating(run, false)
	var ids []string
	for _, c := range g.Hosts[0].Cases {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "a,d" || len(run.Hosts[0].Cases) != 4 {
		t.Errorf("gating kept %v (the input must stay whole)", ids)
	}
}

// OutputsOf keeps the formats asked for and drops those left empty.
func TestOutputsOfDropsEmptyPaths(t *testing.T) {
	got := OutputsOf(map[string]string{"junit": "j.xml", "tap": "", "json": Stdout})
	if len(got) != 2 || got["junit"] != "j.xml" || got["json"] != Stdout {
		t.Errorf("OutputsOf = %v", got)
	}
	if got := OutputsOf(nil); got == nil || len(got) != 0 {
		t.Errorf("OutputsOf(nil) = %#v, want an empty map", got)
	}
}
