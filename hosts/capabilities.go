package hosts

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Capability interfaces, one per protocol.Kind. A returned error is a
// harness fault (the check is reported ERROR); a host-side "no" is a Result
// with OK false.
type (
	TriggerClicker interface {
		ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	DialogConfirmer interface {
		ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	LinkChecker interface {
		CheckLinkOpen(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	ConversationReader interface {
		ConversationContains(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	ThemeToggler interface {
		ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	ModelToolLister interface {
		ReadModelToolList(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	FrameInspector interface {
		InspectFrame(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	ConsoleReader interface {
		ReadConsole(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	IsolationResetter interface {
		ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// ToolCanceller presses the host's Stop control for the running tool
	// call whose View displays req.Marker; the host then cancels the call.
	ToolCanceller interface {
		CancelTool(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// ViewCloser closes the View that displays req.Marker the way a user
	// would (a close button), which makes the host tear it down.
	ViewCloser interface {
		CloseView(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// DownloadChecker reports the next file the browser downloaded, as
	// {"filename", "content"}, waiting up to req.TimeoutMs.
	DownloadChecker interface {
		CheckDownload(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// ToolOpener makes the host call req.Tool with req.Arguments and show
	// that call's View, as a user of the host's own tool list or a deep
	// link would (no agent). It returns once the host has been told; the
	// suite learns from the fixture server whether the View appeared. It
	// may close the View of the last OpenTool (a host that shows one at a
	// time, as the mcp-use driver does with its tabs): the suite lets a View it
	// still reads from finish first (tests/probes.ts settleShared).
	ToolOpener interface {
		OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// FrameMessageReader reports the window messages the host's frame,
	// the sandbox proxy frame and the View frame of the suite's View
	// received (browserhost.FrameMessages): the sandbox handshake, seen
	// from the host page.
	FrameMessageReader interface {
		ReadFrameMessages(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// PromptObserver watches the host page for prompts put before the
	// user (observePrompts): req.Phase "mark" remembers what the page
	// shows, "report" answers a protocol.PromptReport of what appeared
	// since. Every browser host has it (browserhost.Base).
	PromptObserver interface {
		ObservePrompts(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// NewSessionToolLister reports the model's tool list ([]string) in a
	// new session of the host (a new conversation, another tab), leaving
	// the session the suite's View is in as it is: a host that persisted
	// app tool registrations offers a closed View's tools there.
	NewSessionToolLister interface {
		ReadNewSessionToolList(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// AgentDescriber says (a JSON boolean) whether the host has an agent
	// that answers the conversation, from what its driver was told (an
	// env profile's AGENT): the suite then need not wait out the agent
	// control question's window to learn that none answers.
	AgentDescriber interface {
		HasAgent(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// ViewKeeper says (a JSON boolean) whether probe Views may be opened
	// side by side: the driver opens tools itself (ToolOpener) and the
	// host keeps every View it shows open beside the ones opened after
	// it, until it is closed. The suite then runs its probe checks side
	// by side instead of one after another.
	ViewKeeper interface {
		KeepsViews(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
	// MessageRoleReader says (a JSON string) whose message the
	// conversation shows the text containing req.Marker as: "user" for
	// the user's own, else "assistant" or "other", waiting up to
	// req.TimeoutMs for it (OK false when it never appears).
	MessageRoleReader interface {
		MessageRole(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
)

// capability is a row of the one table of capabilities: the kind of
// request, the interface whose method serves it, and whether every
// browser page gives it to its driver (which changes what a SKIP says
// would provide it). Adding a capability is a row here, its interface
// above and its kind in the contract (protocol.go and protocol.ts); a
// test ties the three together.
type capability struct {
	kind   protocol.Kind
	method func(Host) capFunc
	iface  string // "hosts.ToolOpener", for messages
	// everyPage: every browser host has it (an env profile too, unless it
	// lists the kind as unsupported).
	everyPage bool
}

type capFunc func(context.Context, protocol.Request) (protocol.Result, error)

// served is a table row's method lookup: m's receiver interface, when h
// implements it.
func served[I any](m func(I, context.Context, protocol.Request) (protocol.Result, error)) (func(Host) capFunc, string) {
	return func(h Host) capFunc {
		c, ok := h.(I)
		if !ok {
			return nil
		}
		return func(ctx context.Context, req protocol.Request) (protocol.Result, error) { return m(c, ctx, req) }
	}, reflect.TypeFor[I]().String()
}

func row[I any](k protocol.Kind, m func(I, context.Context, protocol.Request) (protocol.Result, error), everyPage bool) capability {
	method, iface := served(m)
	return capability{kind: k, method: method, iface: iface, everyPage: everyPage}
}

// capabilities is the table, in protocol.Kinds order.
var capabilities = []capability{
	row(protocol.KindClickTrigger, TriggerClicker.ClickTrigger, true),
	row(protocol.KindConfirmDialog, DialogConfirmer.ConfirmDialog, false),
	row(protocol.KindCheckLinkOpen, LinkChecker.CheckLinkOpen, true),
	row(protocol.KindConversationContains, ConversationReader.ConversationContains, false),
	row(protocol.KindToggleTheme, ThemeToggler.ToggleTheme, false),
	row(protocol.KindReadModelToolList, ModelToolLister.ReadModelToolList, false),
	row(protocol.KindInspectFrame, FrameInspector.InspectFrame, true),
	row(protocol.KindReadConsole, ConsoleReader.ReadConsole, true),
	row(protocol.KindResetIsolation, IsolationResetter.ResetIsolation, true),
	row(protocol.KindCancelTool, ToolCanceller.CancelTool, false),
	row(protocol.KindCloseView, ViewCloser.CloseView, false),
	row(protocol.KindCheckDownload, DownloadChecker.CheckDownload, true),
	row(protocol.KindOpenTool, ToolOpener.OpenTool, false),
	row(protocol.KindReadFrameMessages, FrameMessageReader.ReadFrameMessages, true),
	row(protocol.KindObservePrompts, PromptObserver.ObservePrompts, true),
	row(protocol.KindReadNewSessionToolList, NewSessionToolLister.ReadNewSessionToolList, false),
	row(protocol.KindHasAgent, AgentDescriber.HasAgent, false),
	row(protocol.KindKeepsViews, ViewKeeper.KeepsViews, false),
	row(protocol.KindMessageRole, MessageRoleReader.MessageRole, false),
}

func lookup(k protocol.Kind) (capability, bool) {
	for _, c := range capabilities {
		if c.kind == k {
			return c, true
		}
	}
	return capability{}, false
}

// CapabilitySet is implemented by a host whose capabilities are decided at
// run time, like http.ResponseController's ErrNotSupported: the value has
// every capability method it could ever offer, and Supports says which are
// live. Supports and Dispatch ask it first; a kind it does not support
// counts as absent everywhere and is answered "unsupported" without the
// method being called.
type CapabilitySet interface {
	Supports(k protocol.Kind) bool
}

// Performer is a CapabilitySet whose supported capabilities all go through
// one method (a person asked, say): Perform is called for every kind
// Supports allows, in place of the per-kind methods.
type Performer interface {
	CapabilitySet
	Perform(ctx context.Context, req protocol.Request) (protocol.Result, error)
}

// ProvideHinter is implemented by a host that knows better than the
// table (an env profile's variable, a flag) what would give it a
// capability it lacks: its answer ends the SKIP reason, after "to make it
// judgeable: ". An empty answer falls back to HowToProvide.
type ProvideHinter interface {
	HowToProvide(k protocol.Kind) string
}

// Supports reports whether h has the capability of kind k: its
// CapabilitySet, when it has one, says so and it has the method.
func Supports(h Host, k protocol.Kind) bool {
	return method(h, k) != nil
}

// Capabilities are the kinds h supports, in table order.
func Capabilities(h Host) []protocol.Kind {
	var out []protocol.Kind
	for _, c := range capabilities {
		if Supports(h, c.kind) {
			out = append(out, c.kind)
		}
	}
	return out
}

func method(h Host, k protocol.Kind) capFunc {
	if cs, ok := h.(CapabilitySet); ok && !cs.Supports(k) {
		return nil
	}
	c, ok := lookup(k)
	if !ok {
		return nil
	}
	if p, ok := h.(Performer); ok {
		return p.Perform
	}
	return c.method(h)
}

// Dispatch services one request on h. An invalid request, an absent
// capability, a harness error or a panic in the host all become a Result,
// so one bad request never stops the run. An unsupported answer's error
// says what would provide the capability (UnsupportedReason, or h's own
// hint as a ProvideHinter).
func Dispatch(ctx context.Context, h Host, req protocol.Request) (res protocol.Result) {
	if err := req.Validate(); err != nil {
		return protocol.Result{OK: false, Error: "harness: invalid request from the page: " + err.Error()}
	}
	defer func() { res = explain(h, req.Kind, res) }()
	m := method(h, req.Kind)
	if m == nil {
		return protocol.Unsupported(req.Kind)
	}
	defer func() {
		if p := recover(); p != nil {
			res = protocol.Result{OK: false, Error: fmt.Sprintf("harness: %s panicked: %v\n%s", req.Kind, p, debug.Stack())}
		}
	}()
	r, err := m(ctx, req)
	if err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("harness: %s failed: %v", req.Kind, err)}
	}
	return r
}

// HowToProvide says what would give a host capability k, from the table:
// the Go interface, and whether an env profile has it by default.
func HowToProvide(k protocol.Kind) string {
	c, ok := lookup(k)
	switch {
	case !ok:
		return "no host driver offers it in this version of mcpconform"
	case c.everyPage:
		return "every browser host has it (an env profile too, unless it lists the kind as unsupported); a Go driver implements " + c.iface
	}
	return "implement " + c.iface + " in the host's Go driver, or describe the host with an env profile that offers it (docs/profiles.md)"
}

// judgeable is the phrase that introduces how to provide a capability.
const judgeable = "to make it judgeable: "

// UnsupportedReason is the answer's error, and so the check's SKIP reason,
// for capability k the host lacks:
//
//	unsupported: <kind> (<why>; to make it judgeable: <how>)
//
// why is what the driver said (its text after "unsupported: <kind>"), or
// "the host driver does not offer it"; how is HowToProvide's, or how when
// given. The message starts with "unsupported: <kind>", which the reports'
// reason code (unsupported:<kind>) is read from.
func UnsupportedReason(k protocol.Kind, driverSaid, how string) string {
	if how == "" {
		how = HowToProvide(k)
	}
	head := "unsupported: " + string(k)
	why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(driverSaid), head))
	if strings.HasPrefix(why, "(") && strings.HasSuffix(why, ")") {
		why = strings.TrimSpace(why[1 : len(why)-1])
	}
	if strings.Contains(why, judgeable) {
		return head + " (" + why + ")" // already worded
	}
	if why == "" {
		why = "the host driver does not offer it"
	}
	return head + " (" + why + "; " + judgeable + how + ")"
}

// explain words an unsupported answer's error with UnsupportedReason and
// h's own hint when it is a ProvideHinter; other answers pass through.
func explain(h Host, k protocol.Kind, res protocol.Result) protocol.Result {
	if !res.Unsupported {
		return res
	}
	how := ""
	if ph, ok := h.(ProvideHinter); ok {
		how = ph.HowToProvide(k)
	}
	res.Error = UnsupportedReason(k, res.Error, how)
	return res
}
