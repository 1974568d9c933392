package conform

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/report"
)

// Convert refuses input it cannot use before reading anything (r.json
// does not exist).
func TestConvertUsageErrors(t *testing.T) {
	tap := report.OutputsOf(map[string]string{"tap": "-"})
	for _, c := range []struct {
		cv   Convert
		want string
	}{
		{Convert{Outputs: tap}, "report needs --from FILE"},
		{Convert{From: []string{"r.json"}}, "nothing to write"},
		{Convert{From: []string{"r.json"}, Outputs: report.OutputsOf(map[string]string{"tap": "-", "json": "-"})}, "only one report can go to stdout"},
	} {
		err := c.cv.Write()
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Write = %v, want a UsageError containing %q", c.cv, err, c.want)
		}
	}
}
