package conform

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/specreg"
)

// The matrix has one row per register requirement, each judged or with
// its reason, and prints as a table and as JSON that carry the same rows.
func TestRequirementMatrix(t *testing.T) {
	m, err := Requirements()
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := specreg.Load()
	if len(m.Rows) != len(reg.Requirements) {
		t.Fatalf("%d rows, register has %d requirements", len(m.Rows), len(reg.Requirements))
	}
	for _, r := range m.Rows {
		if !r.Judged() && r.Reason == nil {
			t.Errorf("%s %s: neither checks nor a reason", r.Edition, r.ID)
		}
	}
	var table strings.Builder
	if err := WriteRequirements(&table, m, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"REQUIREMENT", "host-not-allow-undeclared-domains", "csp/undeclared-connect-blocked",
		"- (human: a warning shown to the user)", "2026-01-26 (1f847646) MUST/MUST NOT: ",
	} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js strings.Builder
	if err := WriteRequirements(&js, m, true); err != nil {
		t.Fatal(err)
	}
	var back RequirementMatrix
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(m.Rows) || back.Coverage["draft"][specreg.GroupMust].Total != m.Coverage["draft"][specreg.GroupMust].Total {
		t.Errorf("JSON does not carry the matrix: %d rows, want %d", len(back.Rows), len(m.Rows))
	}
}

// docs/coverage.md states the coverage figures and the missing checks:
// they must be the matrix's, so the document cannot go stale.
func TestCoverageDocCurrent(t *testing.T) {
	b, err := os.ReadFile("../../docs/coverage.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	m, err := Requirements()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range CoverageLines(m) {
		if !strings.Contains(doc, "    "+line+"\n") {
			t.Errorf("docs/coverage.md lacks the figure %q: update its Coverage section from `mcpconform list --requirements`", line)
		}
	}
	for _, r := range m.Rows {
		if r.Reason != nil && r.Reason.Kind == specreg.ReasonNotYetWritten && !strings.Contains(doc, "| "+r.ID+" |") {
			t.Errorf("docs/coverage.md does not list the missing check for %s", r.ID)
		}
	}
}
