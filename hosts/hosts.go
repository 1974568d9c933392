// Package hosts defines what a host under test is to the runner: Setup and
// Teardown, plus one optional interface per capability. The runner finds a
// capability by type assertion; a host that lacks one answers "unsupported"
// at once and the test skips or falls back.
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
	Logf      func(format string, args ...any)
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
)

// Supports reports whether h implements the capability of kind k.
func Supports(h Host, k protocol.Kind) bool {
	return method(h, k) != nil
}

type capFunc func(context.Context, protocol.Request) (protocol.Result, error)

func method(h Host, k protocol.Kind) capFunc {
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
