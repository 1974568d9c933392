package generic

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/protocol"
)

// A capability skip on a profile host names the variable that would
// provide it, for this profile, the same one `hosts --check` names
// (config.why): the one source of both.
func TestSkipHintsNameTheProfileVariables(t *testing.T) {
	h, err := Lookup("my-host", envconfig.MapLookuper(map[string]string{"MCPCONFORM_MY_HOST_URL": "http://127.0.0.1:1", "MCPCONFORM_MY_HOST_STEPS": "goto {url}"}))
	if err != nil {
		t.Fatal(err)
	}
	host := h.(*Host)
	named := 0
	for _, k := range protocol.Kinds {
		v, ok := strings.CutSuffix(host.cfg.why(k), " is not set")
		if !ok {
			if how := host.HowToProvide(k); how != "" {
				t.Errorf("%s: no variable provides it, yet the hint is %q", k, how)
			}
			continue
		}
		named++
		if want, how := "set MCPCONFORM_MY_HOST_"+v+" in the profile", host.HowToProvide(k); !strings.HasPrefix(how, want) {
			t.Errorf("%s: hosts --check says %s enables it, the skip reason says %q", k, v, how)
		}
	}
	if named == 0 {
		t.Fatal("config.why named no variable for any kind")
	}
	u, err := Lookup("my-host", envconfig.MapLookuper(map[string]string{"MCPCONFORM_MY_HOST_URL": "http://127.0.0.1:1", "MCPCONFORM_MY_HOST_STEPS": "goto {url}", "MCPCONFORM_MY_HOST_UNSUPPORTED": "readConsole"}))
	if err != nil {
		t.Fatal(err)
	}
	if how := u.(*Host).HowToProvide(protocol.KindReadConsole); how != "remove readConsole from MCPCONFORM_MY_HOST_UNSUPPORTED" {
		t.Errorf("a kind declared unsupported: %q", how)
	}
}
