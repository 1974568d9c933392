package runner

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// Every capability kind says how to provide it, and its SKIP reason names
// the kind so that the reports' reason code is unsupported:<kind>.
func TestUnsupportedReasonForEveryKind(t *testing.T) {
	for _, k := range protocol.Kinds {
		p, ok := provide[k]
		if !ok {
			t.Errorf("%s: no entry in the provide table", k)
			continue
		}
		how := HowToProvide(k)
		if !strings.Contains(how, p.goIface) || !strings.HasPrefix(p.goIface, "hosts.") || !strings.Contains(how, "MCPCONFORM_<PROFILE>_") {
			t.Errorf("%s: HowToProvide %q names no Go interface or profile variable", k, how)
		}
		for _, said := range []string{"", protocol.Unsupported(k).Error, protocol.Unsupported(k).Error + " (the product has none)"} {
			msg := UnsupportedReason(k, said)
			c := report.Case{Status: protocol.StatusSkip, Message: msg}
			if code := c.ReasonCode(); code != "unsupported:"+string(k) {
				t.Errorf("%s: reason %q has code %q", k, msg, code)
			}
			if !strings.HasSuffix(msg, "; to make it judgeable: "+how+")") {
				t.Errorf("%s: reason %q does not end with how to provide it", k, msg)
			}
			if UnsupportedReason(k, msg) != msg {
				t.Errorf("%s: rewording %q changed it to %q", k, msg, UnsupportedReason(k, msg))
			}
		}
	}
	if got, want := UnsupportedReason(protocol.KindOpenTool, protocol.Unsupported(protocol.KindOpenTool).Error),
		"unsupported: openTool (the host driver does not offer it; to make it judgeable: set MCPCONFORM_<PROFILE>_OPEN_TOOL in an env profile, or implement hosts.ToolOpener in a Go driver)"; got != want {
		t.Errorf("openTool:\n got %q\nwant %q", got, want)
	}
	// A driver's own reason is kept, as the why.
	if got, want := UnsupportedReason(protocol.KindConfirmDialog, "unsupported: confirmDialog (MCP Inspector 2.12.0 opens links without a confirmation dialog)"),
		"unsupported: confirmDialog (MCP Inspector 2.12.0 opens links without a confirmation dialog; to make it judgeable: "+HowToProvide(protocol.KindConfirmDialog)+")"; got != want {
		t.Errorf("driver detail:\n got %q\nwant %q", got, want)
	}
	// Only unsupported answers are reworded.
	if r := explainUnsupported(nil, protocol.KindOpenTool, protocol.Result{OK: false, Error: "no View appeared"}); r.Error != "no View appeared" {
		t.Errorf("a plain failure was reworded: %q", r.Error)
	}
}

// hintingHost words its own way to provide a capability, for one kind.
type hintingHost struct{ hosts.Host }

func (hintingHost) HowToProvide(k protocol.Kind) string {
	if k == protocol.KindToggleTheme {
		return "run with --operator"
	}
	return ""
}

// A host's own hint replaces the generic table's; an empty hint keeps it.
func TestUnsupportedReasonTakesTheHostsHint(t *testing.T) {
	var h hintingHost
	r := explainUnsupported(h, protocol.KindToggleTheme, protocol.Unsupported(protocol.KindToggleTheme))
	if want := "unsupported: toggleTheme (the host driver does not offer it; to make it judgeable: run with --operator)"; r.Error != want {
		t.Errorf("with the host's hint:\n got %q\nwant %q", r.Error, want)
	}
	r = explainUnsupported(h, protocol.KindOpenTool, protocol.Unsupported(protocol.KindOpenTool))
	if want := UnsupportedReason(protocol.KindOpenTool, ""); r.Error != want {
		t.Errorf("without one:\n got %q\nwant %q", r.Error, want)
	}
}
