package selftest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// TestCascadesEndBlocked runs the cascades of issue #23 on the reference
// host's matching defects, each on the checks concerned: exactly the
// defect's own check is red, and every dependent the table names ends
// BLOCKED naming it, in every format (JSON blockedBy, TAP, JUnit,
// Markdown, console).
func TestCascadesEndBlocked(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the reference host")
	}
	tab, err := selftest.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := e2etest.Env(t, 30*time.Second)
	for _, defect := range []string{"message-dropped", "tool-input-after-result", "download-acked-not-done", "pip-granted-unlisted"} {
		t.Run(defect, func(t *testing.T) {
			e := tab.Defects[defect]
			if len(e.Blocked) == 0 {
				t.Fatalf("table.json names no dependent blocked under %s", defect)
			}
			ids := slices.Clone(e.Red)
			for dep := range e.Blocked {
				ids = append(ids, dep)
			}
			set, _ := reference.ParseDefects([]string{defect})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			o := runner.Options{Env: env}
			o.Selection.Globs = ids
			hr, err := runner.Run(ctx, reference.NewWithDefects(set), o)
			if err != nil {
				t.Fatal(err)
			}
			run := report.Run{Tool: "mcpconform", Hosts: []report.HostRun{hr}}
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
