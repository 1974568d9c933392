// Package protocol is the one contract between the conformance suite, which
// runs inside the app iframe, and the Go runner that drives the host.
//
// The TypeScript twin of this file is protocol.ts in this folder; the suite
// imports it as source. protocol_test.go fails when the two disagree on kinds,
// statuses, clauses, editions or field names, so change both together.
package protocol

import (
	"encoding/json"
	"fmt"
)

// Version is bumped whenever the shape of anything in this file changes. The
// suite reports its own value from listTests(), and the runner refuses to
// drive a suite built against another version.
const Version = "1"

// ChannelName is the global the suite installs on the app frame's window.
const ChannelName = "__mcpConformance"

// Kind names one thing a host can physically do for the suite.
type Kind string

const (
	KindClickTrigger         Kind = "clickTrigger"
	KindConfirmDialog        Kind = "confirmDialog"
	KindCheckLinkOpen        Kind = "checkLinkOpen"
	KindConversationContains Kind = "conversationContains"
	KindToggleTheme          Kind = "toggleTheme"
	KindReadModelToolList    Kind = "readModelToolList"
	KindInspectFrame         Kind = "inspectFrame"
	KindReadConsole          Kind = "readConsole"
	KindResetIsolation       Kind = "resetIsolation"
	// KindCancelTool presses the host's Stop control for the running tool
	// call whose View displays Marker.
	KindCancelTool Kind = "cancelTool"
	// KindCloseView closes, as a user would, the View that displays Marker.
	KindCloseView Kind = "closeView"
	// KindCheckDownload reports the next file the browser downloaded (its
	// name and content), waiting up to TimeoutMs; with a Marker, the newest
	// file whose name contains it, whenever it came (reported already, or
	// forgotten by resetIsolation), which no later request without a
	// marker reports.
	KindCheckDownload Kind = "checkDownload"
	// KindOpenTool makes the host call Tool with Arguments and show that
	// call's View (in the same page or another), the way a user of the
	// host's tool list or a deep link would, with no agent involved. The
	// suite opens its probe Views this way and asks the agent only when
	// the host cannot.
	KindOpenTool Kind = "openTool"
	// KindReadFrameMessages reports the window messages the frames around
	// the suite's View received (the host's frame, the sandbox proxy's,
	// the View's): the sandbox handshake and what the proxy relays, seen
	// from the host page.
	KindReadFrameMessages Kind = "readFrameMessages"
	// KindObservePrompts watches the host page for prompts put before the
	// user: Phase "mark" remembers what the page shows now, Phase "report"
	// answers what appeared since the last mark (new dialogs, toasts and
	// buttons of the host page, native dialogs), as PromptReport. A request
	// the host may ask the user about went unanswered: was the host
	// waiting on the user, whom the driver could not play?
	KindObservePrompts Kind = "observePrompts"
	// KindReadNewSessionToolList reports the model's tool list in a new
	// session of the host (a new conversation, beside the one the suite's
	// View is in, which must go on): what a host that persisted app tool
	// registrations would offer there.
	KindReadNewSessionToolList Kind = "readNewSessionToolList"
	// KindHasAgent reports, as a JSON boolean, whether the host puts the
	// conversation before an agent (a model that answers it), as its
	// driver knows from its configuration: false for a host without one
	// (an Inspector, a development UI). A driver that cannot tell does not
	// offer it, and the suite asks the agent control question instead.
	KindHasAgent Kind = "hasAgent"
	// KindKeepsViews reports, as a JSON boolean, whether probe Views may
	// be opened side by side: the driver opens a tool's View itself
	// (openTool) and the host keeps every View open beside the ones
	// opened after it, until it is closed (a conversation of cards, unlike
	// a host that shows one View at a time). The suite then runs the
	// checks that each observe a probe View of their own side by side
	// (issue #27); a driver that cannot tell does not offer it, and they
	// run one after another.
	KindKeepsViews Kind = "keepsViews"
	// KindMessageRole reports, as a JSON string, whose message the
	// conversation shows the text containing Marker as: "user" for the
	// user's own, otherwise what the driver can tell ("assistant", or
	// "other"), waiting up to TimeoutMs for the text to appear (OK false
	// when it never does). A driver that cannot tell the user's messages
	// from the rest does not offer it.
	KindMessageRole Kind = "messageRole"
)

// The phases of observePrompts.
const (
	PhaseMark   = "mark"
	PhaseReport = "report"
)

// PromptReport is observePrompts' value for Phase "report": what the host
// page showed the user since the mark. Seen lists each new element as
// "dialog: TEXT", "toast: TEXT", "button: TEXT" or "native confirm: TEXT";
// Screenshot is the path of a PNG of the page taken when something was
// seen ("" when nothing was, or it could not be taken).
type PromptReport struct {
	Seen       []string `json:"seen"`
	Screenshot string   `json:"screenshot,omitempty"`
}

// Kinds lists every request kind, in the order of protocol.ts.
var Kinds = []Kind{
	KindClickTrigger, KindConfirmDialog, KindCheckLinkOpen, KindConversationContains,
	KindToggleTheme, KindReadModelToolList, KindInspectFrame, KindReadConsole, KindResetIsolation,
	KindCancelTool, KindCloseView, KindCheckDownload, KindOpenTool,
	KindReadFrameMessages, KindObservePrompts, KindReadNewSessionToolList, KindHasAgent,
	KindKeepsViews, KindMessageRole,
}

// Dialog names a host confirmation dialog for confirmDialog.
type Dialog string

const (
	DialogOpenLink Dialog = "open-link"
	DialogDownload Dialog = "download"
	DialogSampling Dialog = "sampling"
)

// Dialogs lists every dialog, in the order of protocol.ts.
var Dialogs = []Dialog{DialogOpenLink, DialogDownload, DialogSampling}

// Request is one capability request parked by the suite. It is a flat
// rendering of the TypeScript discriminated union: Kind selects which of the
// other fields are meaningful. Seq numbers requests within one run so that a
// request is dispatched once even if it is polled twice.
type Request struct {
	Seq                  int    `json:"seq"`
	Kind                 Kind   `json:"kind"`
	CommitDraftedMessage bool   `json:"commitDraftedMessage,omitempty"`
	Dialog               Dialog `json:"dialog,omitempty"`
	URL                  string `json:"url,omitempty"`
	Marker               string `json:"marker,omitempty"`
	TimeoutMs            int    `json:"timeoutMs,omitempty"`
	To                   string `json:"to,omitempty"`
	Pattern              string `json:"pattern,omitempty"`
	// Tool and Arguments are openTool's: the tool to call and its
	// arguments (a JSON object).
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Phase is observePrompts': PhaseMark or PhaseReport.
	Phase string `json:"phase,omitempty"`
}

// Validate reports whether the request is well formed for its kind. The page
// is untrusted, so the runner validates before it dispatches.
func (r Request) Validate() error {
	switch r.Kind {
	case KindClickTrigger, KindReadModelToolList, KindInspectFrame, KindResetIsolation, KindReadFrameMessages, KindReadNewSessionToolList, KindHasAgent, KindKeepsViews:
	case KindConfirmDialog:
		switch r.Dialog {
		case DialogOpenLink, DialogDownload, DialogSampling:
		default:
			return fmt.Errorf("confirmDialog: unknown dialog %q", r.Dialog)
		}
	case KindCheckLinkOpen:
		if r.URL == "" {
			return fmt.Errorf("checkLinkOpen: url is empty")
		}
	case KindConversationContains, KindMessageRole:
		if r.Marker == "" {
			return fmt.Errorf("%s: marker is empty", r.Kind)
		}
		if r.TimeoutMs < 0 {
			return fmt.Errorf("%s: negative timeoutMs", r.Kind)
		}
	case KindToggleTheme:
		if r.To != "light" && r.To != "dark" {
			return fmt.Errorf("toggleTheme: to must be light or dark, got %q", r.To)
		}
	case KindReadConsole:
		if r.Pattern == "" {
			return fmt.Errorf("readConsole: pattern is empty")
		}
	case KindCancelTool, KindCloseView:
		if r.Marker == "" {
			return fmt.Errorf("%s: marker is empty", r.Kind)
		}
	case KindCheckDownload:
		if r.TimeoutMs < 0 {
			return fmt.Errorf("checkDownload: negative timeoutMs")
		}
	case KindObservePrompts:
		if r.Phase != PhaseMark && r.Phase != PhaseReport {
			return fmt.Errorf("observePrompts: phase must be %s or %s, got %q", PhaseMark, PhaseReport, r.Phase)
		}
	case KindOpenTool:
		if r.Tool == "" {
			return fmt.Errorf("openTool: tool is empty")
		}
		if len(r.Arguments) > 0 {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(r.Arguments, &obj); err != nil || obj == nil {
				return fmt.Errorf("openTool: arguments must be a JSON object, got %.80s", r.Arguments)
			}
		}
	default:
		return fmt.Errorf("unknown request kind %q", r.Kind)
	}
	return nil
}

// Result answers one Request. Unsupported means the host cannot do this at
// all; the suite then skips the test (t.host) or falls back (t.hostOptional).
type Result struct {
	OK          bool            `json:"ok"`
	Value       json.RawMessage `json:"value,omitempty"`
	Error       string          `json:"error,omitempty"`
	Unsupported bool            `json:"unsupported,omitempty"`
}

// Unsupported is the answer for a capability the host lacks.
func Unsupported(k Kind) Result {
	return Result{OK: false, Unsupported: true, Error: "unsupported: " + string(k)}
}

// Status is the outcome of one test.
type Status string

const (
	StatusPass    Status = "PASS"
	StatusFail    Status = "FAIL"
	StatusTimeout Status = "TIMEOUT"
	StatusSkip    Status = "SKIP"
	StatusNotRun  Status = "NOTRUN"
	// StatusError is a harness fault: the check could not be judged.
	StatusError Status = "ERROR"
	// StatusOptional ends a MAY check that observed the optional feature
	// absent: "optional, not implemented". It is never a failure, never
	// counts toward exit 1 and never needs a baseline entry.
	StatusOptional Status = "OPTIONAL"
	// StatusBlocked ends a check that could not reach what it tests because
	// a behaviour another check judges is missing (wptrunner's
	// PRECONDITION_FAILED): the result's BlockedBy names that check. The
	// missing behaviour is red once, in its own check; a BLOCKED check is
	// never a failure, never counts toward exit 1 and never needs a baseline
	// entry.
	StatusBlocked Status = "BLOCKED"
)

// Statuses lists every status, in the order of protocol.ts.
var Statuses = []Status{StatusPass, StatusFail, StatusTimeout, StatusSkip, StatusNotRun, StatusError, StatusOptional, StatusBlocked}

// Clause is the RFC 2119 strength of the requirement a test checks.
type Clause string

const (
	ClauseMust      Clause = "MUST"
	ClauseMustNot   Clause = "MUST NOT"
	ClauseShould    Clause = "SHOULD"
	ClauseShouldNot Clause = "SHOULD NOT"
	ClauseMay       Clause = "MAY"
	// ClauseInfo marks an observation that cannot fail.
	ClauseInfo Clause = "INFO"
)

// Clauses lists every clause, in the order of protocol.ts.
var Clauses = []Clause{ClauseMust, ClauseMustNot, ClauseShould, ClauseShouldNot, ClauseMay, ClauseInfo}

// Edition is the spec edition a requirement comes from.
type Edition string

const (
	EditionStable Edition = "2026-01-26"
	EditionDraft  Edition = "draft"
)

// Editions lists every edition, in the order of protocol.ts.
var Editions = []Edition{EditionStable, EditionDraft}

// Vantage says who judges the check: the view itself, the host driver, or
// the fixture server.
type Vantage string

const (
	VantageInView Vantage = "in-view"
	VantageHost   Vantage = "host"
	VantageServer Vantage = "server"
)

// Vantages lists every vantage, in the order of protocol.ts.
var Vantages = []Vantage{VantageInView, VantageHost, VantageServer}

// TestMeta describes one test as listTests() returns it.
type TestMeta struct {
	ID      string  `json:"id"` // area/slug
	Name    string  `json:"name"`
	Clause  Clause  `json:"clause"`
	Edition Edition `json:"edition"`
	SpecRef string  `json:"specRef"`
	// Requirements are the requirement ids (internal/specreg) the test
	// judges.
	Requirements []string `json:"requirements"`
	Manual       bool     `json:"manual"`
	Vantage      Vantage  `json:"vantage"`
	Needs        []Kind   `json:"needs"`
	// Gesture is true when the test needs a real user gesture (clickTrigger).
	Gesture bool `json:"gesture"`
	// Requires lists the checks whose behaviour this one depends on: when
	// that behaviour is missing, this check ends BLOCKED naming one of them.
	Requires []string `json:"requires,omitempty"`
}

// Area is the part of the id before the slash.
func (m TestMeta) Area() string {
	for i := 0; i < len(m.ID); i++ {
		if m.ID[i] == '/' {
			return m.ID[:i]
		}
	}
	return m.ID
}

// TestResult is one finished test as the suite reports it.
type TestResult struct {
	ID         string          `json:"id"`
	Status     Status          `json:"status"`
	Message    string          `json:"message,omitempty"`
	DurationMs float64         `json:"durationMs"`
	Value      json.RawMessage `json:"value,omitempty"`
	// BlockedBy names the checks (ids) that judge the behaviour this one
	// found missing; set with status BLOCKED only.
	BlockedBy []string `json:"blockedBy,omitempty"`
	// Messages are the JSON-RPC messages the View sent and received during
	// the test, kept for tests that did not pass (evidence).
	Messages json.RawMessage `json:"messages,omitempty"`
}

// SuiteList is what listTests() returns.
type SuiteList struct {
	ProtocolVersion string     `json:"protocolVersion"`
	SuiteVersion    string     `json:"suiteVersion"`
	Tests           []TestMeta `json:"tests"`
}

// State is the suite's run state as poll() reports it.
type State string

const (
	StateIdle    State = "idle"
	StateRunning State = "running"
	StateDone    State = "done"
)

// Poll is what poll() returns: the run state, the running test, the parked
// request (nil when none) and every result so far.
type Poll struct {
	// Instance identifies the suite document; it changes when the host
	// reloads or remounts the app iframe, which restarts the suite.
	Instance  string       `json:"instance"`
	State     State        `json:"state"`
	RunningID string       `json:"runningId,omitempty"`
	Request   *Request     `json:"request,omitempty"`
	Results   []TestResult `json:"results"`
	// HostInfo, HostCapabilities and HostContext are what the host answered
	// in ui/initialize, for the reports.
	HostInfo         json.RawMessage `json:"hostInfo,omitempty"`
	HostCapabilities json.RawMessage `json:"hostCapabilities,omitempty"`
	HostContext      json.RawMessage `json:"hostContext,omitempty"`
}

// ResolvedPoll is what resolveAndPoll() returns: whether the suite took the
// result, and its next change as Poll reports it (nil when the page answered
// through resolve() alone, having no resolveAndPoll).
type ResolvedPoll struct {
	Accepted bool  `json:"accepted"`
	Poll     *Poll `json:"poll"`
}

// TriggerInfo is what trigger() returns: where the suite's trigger button is
// in the app frame's viewport, whether the pointer has reached it, and the
// frame's user-activation state.
type TriggerInfo struct {
	Armed   bool    `json:"armed"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Hovered bool    `json:"hovered"`
	// Moves counts the pointer moves the button has seen (nil from a
	// suite that does not count them): hovered alone stays true when
	// Chromium sends the out-of-process frame no pointerleave.
	Moves            *int `json:"moves,omitempty"`
	Clicks           int  `json:"clicks"`
	LastClickTrusted bool `json:"lastClickTrusted"`
	HasBeenActive    bool `json:"hasBeenActive"`
	IsActive         bool `json:"isActive"`
}
