package selftest

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

func TestPromptSkipProblems(t *testing.T) {
	vs := reference.VariationSet{"download-toast-unconfirmed": true}
	skip := `ui/download-file got no answer, and the host seems to be waiting on the user: after the request the page showed "toast: Download 1 file? x.txt Cancel Download" (screenshot: /tmp/p.png), which the driver could not answer (...); to make it judgeable: give the driver the button to press, the profile's CONFIRM (...)`
	for _, c := range []struct {
		name  string
		vs    reference.VariationSet
		cases []report.Case
		want  string // "" for no problem
	}{
		{"the SKIP names the toast and CONFIRM", vs, []report.Case{{TestMeta: protocol.TestMeta{ID: "downloads/download-file"}, Status: protocol.StatusSkip, Message: skip}}, ""},
		{"a SKIP for another reason", vs, []report.Case{{TestMeta: protocol.TestMeta{ID: "downloads/download-file"}, Status: protocol.StatusSkip, Message: "the host refused the download"}}, "want a SKIP naming"},
		{"a PASS", vs, []report.Case{{TestMeta: protocol.TestMeta{ID: "downloads/download-file"}, Status: protocol.StatusPass}}, "ended PASS"},
		{"the check did not run", vs, nil, "did not run"},
		{"another variation asks nothing of it", reference.VariationSet{"download-refused": true}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(promptSkipProblems(c.vs, c.cases), "\n")
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("problems %q, want one saying %q", got, c.want)
			}
		})
	}
	for v := range promptSkips {
		if _, err := reference.ParseVariations([]string{v}); err != nil {
			t.Errorf("promptSkips names %s: %v", v, err)
		}
	}
}
