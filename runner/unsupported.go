package runner

import (
	"strings"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// How a host driver provides each capability, the one table the SKIP reason
// of an unsupported capability is worded from: the Go interface of package
// hosts a built-in driver implements, and what an env profile
// (MCPCONFORM_<PROFILE>_*, docs/profiles.md) sets or leaves alone.
var provide = map[protocol.Kind]struct{ goIface, profile string }{
	protocol.KindClickTrigger:         {"hosts.TriggerClicker", builtIn},
	protocol.KindConfirmDialog:        {"hosts.DialogConfirmer", "set MCPCONFORM_<PROFILE>_CONFIRM (and list the dialog in MCPCONFORM_<PROFILE>_DIALOGS)"},
	protocol.KindCheckLinkOpen:        {"hosts.LinkChecker", builtIn},
	protocol.KindConversationContains: {"hosts.ConversationReader", "set MCPCONFORM_<PROFILE>_CONVERSATION"},
	protocol.KindToggleTheme:          {"hosts.ThemeToggler", "set MCPCONFORM_<PROFILE>_THEME_TOGGLE"},
	protocol.KindReadModelToolList:    {"hosts.ModelToolLister", "set MCPCONFORM_<PROFILE>_MODEL_TOOLS"},
	protocol.KindInspectFrame:         {"hosts.FrameInspector", builtIn},
	protocol.KindReadConsole:          {"hosts.ConsoleReader", builtIn},
	protocol.KindResetIsolation:       {"hosts.IsolationResetter", builtIn},
	protocol.KindCancelTool:           {"hosts.ToolCanceller", "set MCPCONFORM_<PROFILE>_CANCEL"},
	protocol.KindCloseView:            {"hosts.ViewCloser", "set MCPCONFORM_<PROFILE>_CLOSE"},
	protocol.KindCheckDownload:        {"hosts.DownloadChecker", builtIn},
	protocol.KindOpenTool:             {"hosts.ToolOpener", "set MCPCONFORM_<PROFILE>_OPEN_TOOL"},
}

// builtIn is the profile column of a capability every browser host has.
const builtIn = "every env profile has it unless MCPCONFORM_<PROFILE>_UNSUPPORTED lists it"

// judgeable is the phrase that introduces how to provide a capability.
const judgeable = "to make it judgeable: "

// HowToProvide says what would give a host driver capability k: the env
// profile variable and the Go interface, e.g. "set
// MCPCONFORM_<PROFILE>_OPEN_TOOL in an env profile, or implement
// hosts.ToolOpener in a Go driver".
func HowToProvide(k protocol.Kind) string {
	p, ok := provide[k]
	if !ok {
		return "no host driver offers it in this version of mcpconform"
	}
	if p.profile == builtIn {
		return p.profile + "; a Go driver implements " + p.goIface
	}
	return p.profile + " in an env profile, or implement " + p.goIface + " in a Go driver"
}

// UnsupportedReason is the answer's error, and so the check's SKIP reason,
// for capability k the host lacks:
//
//	unsupported: <kind> (<why>; to make it judgeable: <HowToProvide>)
//
// why is what the driver said (its text after "unsupported: <kind>"), or
// "the host driver does not offer it". The message starts with
// "unsupported: <kind>", which the reports' reason code
// (unsupported:<kind>) is read from.
func UnsupportedReason(k protocol.Kind, driverSaid string) string {
	return unsupportedReason(k, driverSaid, HowToProvide(k))
}

func unsupportedReason(k protocol.Kind, driverSaid, how string) string {
	head := "unsupported: " + string(k)
	why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(driverSaid), head))
	if strings.HasPrefix(why, "(") && strings.HasSuffix(why, ")") {
		why = strings.TrimSpace(why[1 : len(why)-1])
	}
	if strings.Contains(why, judgeable) {
		return head + " (" + why + ")" // already worded here
	}
	if why == "" {
		why = "the host driver does not offer it"
	}
	return head + " (" + why + "; " + judgeable + how + ")"
}

// explainUnsupported words an unsupported answer's error with
// UnsupportedReason, or with h's own hint when it is a
// hosts.ProvideHinter; other answers pass through.
func explainUnsupported(h hosts.Host, k protocol.Kind, res protocol.Result) protocol.Result {
	if !res.Unsupported {
		return res
	}
	how := HowToProvide(k)
	if ph, ok := h.(hosts.ProvideHinter); ok {
		if s := ph.HowToProvide(k); s != "" {
			how = s
		}
	}
	res.Error = unsupportedReason(k, res.Error, how)
	return res
}
