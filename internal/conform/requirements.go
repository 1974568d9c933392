package conform

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/internal/specreg"
	"github.com/mcpconform/mcpconform/protocol"
)

// RequirementMatrix is `mcpconform list --requirements`: every requirement
// of the register with the checks that judge it or the reason none does,
// and the coverage figures.
type RequirementMatrix struct {
	Sources  []specreg.Source                                              `json:"sources"`
	Rows     []specreg.Row                                                 `json:"requirements"`
	Coverage map[protocol.Edition]map[specreg.ClauseGroup]*specreg.Figures `json:"coverage"`
	// External are the JSON-RPC/MCP rules some checks judge besides the
	// register's (specreg.External).
	External []specreg.Sentence `json:"external"`
}

// Requirements builds the matrix from the committed register and the
// checks' declared requirements (read from the suite's sources: no
// browser).
func Requirements() (RequirementMatrix, error) {
	var m RequirementMatrix
	reg, err := specreg.Load()
	if err != nil {
		return m, err
	}
	decl, err := suite.Checks()
	if err != nil {
		return m, err
	}
	checks := make([]specreg.Check, len(decl))
	for i, d := range decl {
		checks[i] = specreg.Check{ID: d.ID, Clause: d.Clause, Edition: d.Edition, Requirements: d.Requirements}
	}
	m.Sources = reg.Sources
	m.Rows = specreg.Matrix(reg, checks)
	m.Coverage = specreg.Coverage(m.Rows)
	m.External = specreg.External
	return m, nil
}

// WriteRequirements prints the matrix: one line per requirement and
// edition (edition, spec line, keyword, id, the checks or the reason), then
// the coverage figures.
func WriteRequirements(w io.Writer, m RequirementMatrix, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(m)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EDITION\tLINE\tKEYWORD\tREQUIREMENT\tJUDGED BY")
	for _, r := range m.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", r.Edition, r.Line, r.Keyword, r.ID, judgedBy(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, line := range CoverageLines(m) {
		fmt.Fprintln(w, line)
	}
	return nil
}

// judgedBy is the checks of a row, or "- (reason: why)".
func judgedBy(r specreg.Row) string {
	if r.Judged() {
		return strings.Join(r.Checks, ", ")
	}
	if r.Reason == nil {
		return "- (no reason given)"
	}
	s := fmt.Sprintf("- (%s: %s)", r.Reason.Kind, r.Reason.Why)
	if len(r.Observed) > 0 {
		s += " observed by " + strings.Join(r.Observed, ", ")
	}
	return s
}

// CoverageLines are the coverage figures, one line per edition and clause
// group: "2026-01-26 MUST/MUST NOT: 27 of 30 judged; of the 3 others: ...".
func CoverageLines(m RequirementMatrix) []string {
	var out []string
	for _, src := range m.Sources {
		ed := src.Edition
		for _, g := range specreg.ClauseGroups {
			f := m.Coverage[ed][g]
			if f == nil || f.Total == 0 {
				continue
			}
			line := fmt.Sprintf("%s (%.8s) %s: %d of %d judged", ed, src.Commit, g, f.Judged, f.Total)
			if t := f.Testable(); t > 0 {
				line += fmt.Sprintf(" (%d of %d testable, %.0f%%)", f.Judged, t, 100*float64(f.Judged)/float64(t))
			}
			var rest []string
			for _, k := range reasonKinds {
				if n := f.ByReason[k]; n > 0 {
					rest = append(rest, fmt.Sprintf("%d %s", n, k))
				}
			}
			if len(rest) > 0 {
				line += "; not judged: " + strings.Join(rest, ", ")
			}
			out = append(out, line)
		}
	}
	return out
}

var reasonKinds = []specreg.ReasonKind{specreg.ReasonNotYetWritten, specreg.ReasonVantage, specreg.ReasonLLM, specreg.ReasonHuman, specreg.ReasonPermission, specreg.ReasonImplicit}
