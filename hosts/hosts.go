// Package hosts defines what a host under test is to the runner: Setup and
// Teardown, plus one optional interface per capability. The runner finds a
// capability by type assertion, after asking the host's CapabilitySet when
// it has one; a host that lacks a capability answers "unsupported" at once
// and the test skips or falls back.
//
// The built-in hosts are registered by name (Register, in each host
// package's init; hosts/builtin imports them all).
package hosts

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/protocol"
)

// SuiteBridge is how the runner reaches the suite inside the host. Browser
// hosts implement it with bridge.Suite; a desktop host would substitute its
// own transport.
type SuiteBridge interface {
	ListTests(ctx context.Context) (protocol.SuiteList, error)
	Start(ctx context.Context, ids []string) error
	Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error)
	Resolve(ctx context.Context, seq int, r protocol.Result) (bool, error)
}

// ResolvePoller is a SuiteBridge that can answer a request and long-poll in
// one trip to the page, halving the dispatch round trip. A nil Poll means
// the page could not (an older suite): poll as usual.
type ResolvePoller interface {
	ResolveAndPoll(ctx context.Context, seq int, r protocol.Result, wait time.Duration) (bool, *protocol.Poll, error)
}

// Env is what the runner gives a host to set itself up with.
type Env struct {
	Browser *bridge.Browser
	// ServerURL is the fixture MCP server the host must connect to;
	// SecondServerURL a second one, for cross-server checks.
	ServerURL       string
	SecondServerURL string
	// AppTimeout bounds how long Setup may wait for the app to show.
	AppTimeout time.Duration
	// TraceFile, when set, asks a browser host to record a Playwright trace
	// of the whole run into this file (it may contain page content).
	TraceFile string
	// VideoFile, when set, asks a browser host to record a video (WebM) of
	// its page into this file, saved at teardown (it may show logged-in
	// content). The browser must have been launched with bridge.Options.Video.
	VideoFile string
	// CPUThrottle, when above 1, asks a browser host to slow the
	// renderers of its page and of the page's frames that many times
	// (browserhost.ThrottleCPU), as a loaded machine does: the slowed run
	// that shows no verdict depends on the host's speed
	// (docs/audit-timing.md).
	CPUThrottle float64
	// Relay, when the run has one, carries the suite's channel through
	// the fixture server's own MCP tools (the View's tools/call, which
	// the host proxies) instead of an evaluate in the app frame: the
	// transport of hosts whose frame the runner cannot reach.
	Relay Relay
	// Bridge is BridgeRelay when the run must reach the suite through
	// Relay alone, with no evaluate in the app frame (`--bridge relay`):
	// a browser host's Setup then returns AwaitRelay's bridge instead of
	// binding to the frame. Empty or BridgeEvaluate: the frame's evaluate.
	Bridge string
	Logf   func(format string, args ...any)
}

// The bridges Env.Bridge names.
const (
	BridgeEvaluate = "evaluate"
	BridgeRelay    = "relay"
)

// UseRelay reports whether Setup must reach the suite through Relay alone.
func (e Env) UseRelay() bool { return e.Bridge == BridgeRelay && e.Relay != nil }

// AwaitRelay waits up to timeout for the suite to appear on Relay.
func (e Env) AwaitRelay(ctx context.Context, timeout time.Duration) (SuiteBridge, error) {
	if e.Relay == nil {
		return nil, fmt.Errorf("this run has no relay")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return e.Relay.Await(ctx)
}

// Relay is the runner's end of the relay SuiteBridge: the suite, in a View
// of this run, speaks listTests/start/poll/resolve through app-only tools
// of the fixture server, and Await hands the runner a SuiteBridge to it.
type Relay interface {
	// Await waits until a suite View bound to this run has appeared on the
	// relay (or ctx ends) and returns the bridge to it.
	Await(ctx context.Context) (SuiteBridge, error)
}

// Host is a host under test. Only Setup and Teardown are required.
type Host interface {
	Name() string
	Setup(ctx context.Context, env Env) (SuiteBridge, error)
	Teardown(ctx context.Context) error
}

// EvidenceTaker is implemented by hosts that can record evidence of a
// failed check (a screenshot of the host page, console lines). It writes
// files named base.* into dir and returns their paths.
type EvidenceTaker interface {
	TakeEvidence(ctx context.Context, dir, base string) ([]string, error)
}

// AllowedHoster is implemented by hosts whose pages load from the public
// internet (hosted products): AllowedHosts are the host names (and their
// subdomains) the browser's loopback guard must let through. It is asked
// before the browser starts, so before Setup; an error is bad
// configuration (a usage error).
type AllowedHoster interface {
	AllowedHosts() ([]string, error)
}

// LoginProfiler is implemented by hosts that need a logged-in browser
// session, which `mcpconform login` records. LoginProfile reads the
// product's configuration through getenv (its MCPCONFORM_<HOST>_*
// overrides); an error is bad configuration and names the variable.
type LoginProfiler interface {
	LoginProfile(getenv func(string) string) (Login, error)
}

// Login is what `mcpconform login` needs to know about a product.
type Login struct {
	Product     string // the --host name, e.g. "chatgpt"
	DisplayName string // e.g. "ChatGPT"
	// URL is the login page; URLSource says where its value came from,
	// for messages ("built-in; override with MCPCONFORM_CHATGPT_LOGIN_URL").
	URL, URLSource string
	// StorageStateVar is the variable `run` reads the session file's path
	// from; StorageState is its current value ("" when unset).
	StorageStateVar, StorageState string
	// Domains are the host names (and their subdomains) whose cookies
	// belong to the product.
	Domains []string
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
// Supports allows, in place of the per-kind methods below.
type Performer interface {
	CapabilitySet
	Perform(ctx context.Context, req protocol.Request) (protocol.Result, error)
}

// ProvideHinter is implemented by a host that knows better than the
// generic table (env profile variable, Go interface) what would give it a
// capability it lacks: its answer ends the SKIP reason, after "to make it
// judgeable: ". An empty answer falls back to the table.
type ProvideHinter interface {
	HowToProvide(k protocol.Kind) string
}

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
	// suite learns from the fixture server whether the View appeared.
	ToolOpener interface {
		OpenTool(ctx context.Context, req protocol.Request) (protocol.Result, error)
	}
)

// Supports reports whether h has the capability of kind k: its
// CapabilitySet, when it has one, says so and it has the method.
func Supports(h Host, k protocol.Kind) bool {
	return method(h, k) != nil
}

// Capabilities are the kinds h supports, in protocol.Kinds order.
func Capabilities(h Host) []protocol.Kind {
	var out []protocol.Kind
	for _, k := range protocol.Kinds {
		if Supports(h, k) {
			out = append(out, k)
		}
	}
	return out
}

type capFunc func(context.Context, protocol.Request) (protocol.Result, error)

func method(h Host, k protocol.Kind) capFunc {
	if cs, ok := h.(CapabilitySet); ok && !cs.Supports(k) {
		return nil
	}
	if p, ok := h.(Performer); ok {
		return p.Perform
	}
	switch k {
	case protocol.KindClickTrigger:
		if c, ok := h.(TriggerClicker); ok {
			return c.ClickTrigger
		}
	case protocol.KindConfirmDialog:
		if c, ok := h.(DialogConfirmer); ok {
			return c.ConfirmDialog
		}
	case protocol.KindCheckLinkOpen:
		if c, ok := h.(LinkChecker); ok {
			return c.CheckLinkOpen
		}
	case protocol.KindConversationContains:
		if c, ok := h.(ConversationReader); ok {
			return c.ConversationContains
		}
	case protocol.KindToggleTheme:
		if c, ok := h.(ThemeToggler); ok {
			return c.ToggleTheme
		}
	case protocol.KindReadModelToolList:
		if c, ok := h.(ModelToolLister); ok {
			return c.ReadModelToolList
		}
	case protocol.KindInspectFrame:
		if c, ok := h.(FrameInspector); ok {
			return c.InspectFrame
		}
	case protocol.KindReadConsole:
		if c, ok := h.(ConsoleReader); ok {
			return c.ReadConsole
		}
	case protocol.KindResetIsolation:
		if c, ok := h.(IsolationResetter); ok {
			return c.ResetIsolation
		}
	case protocol.KindCancelTool:
		if c, ok := h.(ToolCanceller); ok {
			return c.CancelTool
		}
	case protocol.KindCloseView:
		if c, ok := h.(ViewCloser); ok {
			return c.CloseView
		}
	case protocol.KindCheckDownload:
		if c, ok := h.(DownloadChecker); ok {
			return c.CheckDownload
		}
	case protocol.KindOpenTool:
		if c, ok := h.(ToolOpener); ok {
			return c.OpenTool
		}
	}
	return nil
}

// Dispatch services one request on h. An invalid request, an absent
// capability, a harness error or a panic in the host all become a Result,
// so one bad request never stops the run.
func Dispatch(ctx context.Context, h Host, req protocol.Request) (res protocol.Result) {
	if err := req.Validate(); err != nil {
		return protocol.Result{OK: false, Error: "harness: invalid request from the page: " + err.Error()}
	}
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
