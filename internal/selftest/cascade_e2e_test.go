package selftest_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// cascadeDefects are the cascades of issue #23: under each, exactly the
// defect's own check is red, and every dependent the table names ends
// BLOCKED naming it, in every format (JSON blockedBy, TAP, JUnit,
// Markdown, console).
var cascadeDefects = []string{"message-dropped", "tool-input-after-result", "download-acked-not-done", "pip-granted-unlisted"}

// checkCascades judges the cascades on the mutation pass's own runs of
// those defects (their areas hold every dependent the table names, so the
// area scope runs them too) instead of running the defects again.
func checkCascades(t *testing.T, tab selftest.Table, runs []selftest.DefectRun) {
	for _, defect := range cascadeDefects {
		t.Run("cascade/"+defect, func(t *testing.T) {
			e := tab.Defects[defect]
			if len(e.Blocked) == 0 {
				t.Fatalf("table.json names no dependent blocked under %s", defect)
			}
			i := slices.IndexFunc(runs, func(r selftest.DefectRun) bool { return r.Defect == defect })
			if i < 0 || runs[i].Err != nil {
				t.Fatalf("the mutation pass has no run of %s", defect)
			}
			ran := map[string]bool{}
			for _, c := range runs[i].Cases {
				ran[c.ID] = true
			}
			for dep, blocker := range e.Blocked {
				if !ran[dep] || !ran[blocker] {
					t.Fatalf("the run of %s did not run %s and its blocker %s", defect, dep, blocker)
				}
			}
			run := report.Run{Tool: "mcpconform", Hosts: []report.HostRun{{Host: "reference", Cases: runs[i].Cases}}}
			checkOneRed(t, run, e)
			checkEveryFormatNamesTheBlocker(t, run, e)
		})
	}
}

// checkOneRed: the defect's own checks red, nothing else; the dependents
// BLOCKED by the check the table names (read back from the JSON report).
func checkOneRed(t *testing.T, run report.Run, e selftest.Expect) {
	t.Helper()
	var js bytes.Buffer
	if err := report.WriteJSON(&js, run); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hosts []struct {
			Cases []struct {
				ID        string          `json:"id"`
				Status    protocol.Status `json:"status"`
				Message   string          `json:"message"`
				BlockedBy []string        `json:"blockedBy"`
			} `json:"cases"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var red []string
	for _, c := range doc.Hosts[0].Cases {
		if c.Status == protocol.StatusFail || c.Status == protocol.StatusTimeout {
			red = append(red, c.ID)
		}
		if want, ok := e.Blocked[c.ID]; ok && (c.Status != protocol.StatusBlocked || !slices.Equal(c.BlockedBy, []string{want})) {
			t.Errorf("%s: expected BLOCKED with blockedBy [%s], observed %s %v: %s", c.ID, want, c.Status, c.BlockedBy, c.Message)
		}
	}
	slices.Sort(red)
	if want := slices.Sorted(slices.Values(e.Red)); !slices.Equal(red, want) {
		t.Errorf("red checks: expected exactly %v (one root cause, one red), observed %v", want, red)
	}
}

// checkEveryFormatNamesTheBlocker: each dependent's blocker appears where
// each format puts a skip's reason.
func checkEveryFormatNamesTheBlocker(t *testing.T, run report.Run, e selftest.Expect) {
	t.Helper()
	var tap, junit, md, console bytes.Buffer
	if err := report.WriteTAP(&tap, run); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJUnit(&junit, run, report.JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	con := report.NewConsole(&console, false)
	for _, c := range run.Hosts[0].Cases {
		con.Case(run.Hosts[0].Host, c)
	}
	con.Summary(run)
	for dep, blocker := range e.Blocked {
		_, slug, _ := strings.Cut(dep, "/")
		for _, f := range []struct{ name, out, want string }{
			{"TAP", tap.String(), " - " + dep + " # SKIP blocked by " + blocker + ": "},
			{"JUnit", junit.String(), `name="` + slug + `"`},
			{"JUnit", junit.String(), `type="blocked:` + blocker + `"`},
			{"Markdown", md.String(), "`" + dep + "`"},
			{"Markdown", md.String(), "blocked by " + blocker + ": "},
			{"console", console.String(), "BLOCKED  " + dep},
			{"console", console.String(), "not judged: BLOCKED "},
		} {
			if !strings.Contains(f.out, f.want) {
				t.Errorf("%s report: expected %q for the blocked %s, not found in:\n%s", f.name, f.want, dep, f.out)
			}
		}
	}
}
