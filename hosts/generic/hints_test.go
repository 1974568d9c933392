package generic

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The runner words a capability skip from its own table of profile
// variables (runner.HowToProvide: package runner cannot import this one,
// whose tests import it), and `hosts --check` from config.why: the two
// must name the same variable for every kind a variable enables.
func TestSkipHintsNameTheProfileVariables(t *testing.T) {
	var c config
	named := 0
	for _, k := range protocol.Kinds {
		v, ok := strings.CutSuffix(c.why(k), " is not set")
		if !ok {
			continue
		}
		named++
		if want, how := "MCPCONFORM_<PROFILE>_"+v, runner.HowToProvide(k); !strings.Contains(how, want) {
			t.Errorf("%s: hosts --check says %s enables it, the skip reason says %q", k, v, how)
		}
	}
	if named == 0 {
		t.Fatal("config.why named no variable for any kind")
	}
}
