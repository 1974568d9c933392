package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/protocol"
)

// pageData is the JSON block of an HTML report, as far as these tests read it.
type pageData struct {
	Compared bool `json:"compared"`
	Hosts    []struct {
		Host string `json:"host"`
	} `json:"hosts"`
	Rows []struct {
		ID    string `json:"id"`
		Cells []*struct {
			Kind   string `json:"kind"`
			Change string `json:"change"`
		} `json:"cells"`
	} `json:"rows"`
	Changes []struct {
		Host, ID, Change string
	} `json:"changes"`
}

func readPage(t *testing.T, path string) pageData {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="mcpconform-data">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no data block", path)
	}
	var d pageData
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReportHTMLMergesShardsAndComparesRuns: two shards of one host merge
// into one column, a second host is a second column, a newer run of a host
// is compared with its older one, and --compare marks what changed.
func TestReportHTMLMergesShardsAndComparesRuns(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	saveJSON(t, p("ref-1of2.json"), hostRun("reference", kase("a/one", protocol.StatusPass, "")))
	saveJSON(t, p("ref-2of2.json"), hostRun("reference", kase("b/two", protocol.StatusFail, "broke")))
	saveJSON(t, p("insp.json"), hostRun("inspector", kase("a/one", protocol.StatusPass, ""), kase("b/two", protocol.StatusPass, "")))
	saveJSON(t, p("insp-new.json"), hostRun("inspector", kase("a/one", protocol.StatusFail, "now broken"), kase("b/two", protocol.StatusPass, "")))
	saveJSON(t, p("ref-old.json"), hostRun("reference", kase("a/one", protocol.StatusPass, ""), kase("b/two", protocol.StatusPass, "")))

	if _, code, err := reportApp(t, "", "--html", p("grid.html"),
		"--from", p("ref-1of2.json"), "--from", p("ref-2of2.json"), "--from", p("insp.json"), "--from", p("insp-new.json"),
		"--compare", p("ref-old.json")); code != 0 {
		t.Fatalf("report --html: exit %d: %v", code, err)
	}
	d := readPage(t, p("grid.html"))
	if len(d.Hosts) != 2 || d.Hosts[0].Host != "reference" || d.Hosts[1].Host != "inspector" || len(d.Rows) != 2 {
		t.Fatalf("grid %+v", d)
	}
	cell := func(id string, col int) string {
		for _, r := range d.Rows {
			if r.ID == id && r.Cells[col] != nil {
				return r.Cells[col].Kind + "/" + r.Cells[col].Change
			}
		}
		return "none"
	}
	for _, tc := range []struct {
		id   string
		col  int
		want string
	}{
		{"a/one", 0, "PASS/"}, {"b/two", 0, "FAIL/regressed"}, // shards merged, compared with --compare
		{"a/one", 1, "FAIL/regressed"}, {"b/two", 1, "PASS/"}, // the newer --from compared with the older
	} {
		if got := cell(tc.id, tc.col); got != tc.want {
			t.Errorf("%s on %s: %s, want %s", tc.id, d.Hosts[tc.col].Host, got, tc.want)
		}
	}
	if len(d.Changes) != 2 {
		t.Errorf("changes %+v", d.Changes)
	}

	// --html with another format: the others still refuse a host twice.
	if _, code, err := reportApp(t, "", "--html", p("x.html"), "--json", p("x.json"), "--from", p("insp.json"), "--from", p("insp-new.json")); code != ExitUsage || !strings.Contains(err.Error(), "--merge") {
		t.Errorf("--json with a repeated host: exit %d: %v", code, err)
	}
	// --from - feeds both --html and another format.
	insp, _ := os.ReadFile(p("insp.json"))
	if _, code, err := reportApp(t, string(insp), "--html", p("stdin.html"), "--json", p("stdin.json"), "--from", "-"); code != 0 {
		t.Fatalf("--from - with --html and --json: exit %d: %v", code, err)
	}
	if d := readPage(t, p("stdin.html")); len(d.Hosts) != 1 || d.Hosts[0].Host != "inspector" {
		t.Errorf("page from stdin %+v", d)
	}
	if b, _ := os.ReadFile(p("stdin.json")); !strings.Contains(string(b), `"inspector"`) {
		t.Error("the JSON from stdin lost its host")
	}
	// --html to stdout.
	out, code, err := reportApp(t, "", "--html", "-", "--from", p("insp.json"))
	if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Errorf("--html -: exit %d: %v: %.40q", code, err, out)
	}
}

// TestRunHTMLFlag: run --html (and MCPCONFORM_HTML) writes the page.
func TestRunHTMLFlag(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "out", "run.html")
	t.Setenv("MCPCONFORM_HTML", filepath.Join(dir, "env.html"))
	envRun := hostRun("reference", kase("a/one", protocol.StatusPass, ""))
	if code, err := withFlags(t, nil, func(c *cli.Context) error { return writeOut(c, &envRun, nil) }); code != 0 {
		t.Fatalf("MCPCONFORM_HTML: exit %d: %v", code, err)
	}
	if d := readPage(t, filepath.Join(dir, "env.html")); len(d.Rows) != 1 || d.Rows[0].Cells[0].Kind != "PASS" {
		t.Errorf("page from MCPCONFORM_HTML %+v", d)
	}
	run := hostRun("reference", kase("a/one", protocol.StatusFail, "broke"))
	if code, err := withFlags(t, []string{"--html", path}, func(c *cli.Context) error { return writeOut(c, &run, nil) }); code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	if d := readPage(t, path); len(d.Rows) != 1 || d.Rows[0].Cells[0].Kind != "FAIL" {
		t.Errorf("page %+v", d)
	}
}
