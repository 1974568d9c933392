// Package hosts is the contract between the runner and a host under test:
// Setup shows the conformance suite's app and Teardown ends it, and every
// capability is an optional one-method interface (capabilities.go) that
// the runner finds by type assertion. A host that lacks a capability
// answers "unsupported" at once and the check skips or falls back.
//
// The package depends on protocol alone: no browser automation, no
// transport. A host whose app frame the runner can reach offers it as a
// FrameBinder; the runner binds the suite there or, when the host offers
// no frame or the run asks for it, through the fixture server's relay.
//
// Hosts are built by name (Register, New): each built-in host package
// registers itself in its init, hosts/builtin imports them all, and env
// profiles (hosts/generic) answer for every other name.
package hosts

import (
	"context"
	"errors"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// Host is a host under test. Only Name, Setup and Teardown are required.
type Host interface {
	Name() string
	// Setup brings the host up and shows the suite's app (the View of
	// the fixture server's conformance_suite tool) the way a user would.
	// It does not reach into the View: the runner binds the suite
	// afterwards, in the frame (FrameBinder) or through the relay.
	Setup(ctx context.Context, env Env) error
	Teardown(ctx context.Context) error
}

// FrameBinder is a host whose app frame the runner can reach (a page it
// drives in the browser). BindSuite waits, up to timeout, for the suite
// in the View that Setup showed and returns the bridge that evaluates in
// its frame. A host without it is reached through the relay alone; so is
// every host when the run asks for the relay (--bridge relay), and then
// BindSuite is never called.
type FrameBinder interface {
	BindSuite(ctx context.Context, timeout time.Duration) (SuiteBridge, error)
}

// SuiteBridge is how the runner reaches the suite inside the host: an
// evaluate in the app frame (package bridge), or the View's own tools/call
// through the fixture server (bridge/relay).
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

// PollWaiter is a SuiteBridge whose idle polls cost the host something
// (each is a tools/call the host proxies, logs and may render):
// MinPollWait is the least long-poll wait the runner should use. The
// suite still answers a long poll as soon as something changes.
type PollWaiter interface {
	MinPollWait() time.Duration
}

// The SuiteBridge contract's limits and errors, the same for every bridge.
var (
	// ErrMalformed means the page answered something that is not what the
	// channel promises (wrong shape, too large): the page is untrusted.
	ErrMalformed = errors.New("malformed answer from the page")
	// ErrBrowserGone means the browser process exited or crashed under
	// the run (Browser.Gone was closed).
	ErrBrowserGone = errors.New("the browser crashed or was closed")
)

// MaxPayload bounds one answer of the suite through any bridge.
const MaxPayload = 4 << 20

// DefaultAppTimeout is how long a host may take to show the suite's app
// when the run names no --app-timeout and the host states no longer wait
// of its own (AppWaiter).
const DefaultAppTimeout = 60 * time.Second

// Browser is the run's browser as the contract sees it: opaque, so that
// this package, the runner and a host that drives nothing link no browser
// automation. internal/browser's Browser satisfies it; browser hosts
// (hosts/browserhost) use that type.
type Browser interface {
	// Version names the browser for the reports.
	Version() string
	// Gone is closed when the browser crashed or was closed.
	Gone() <-chan struct{}
}

// Env is what the runner gives a host to set itself up with.
type Env struct {
	// Browser is the run's browser; nil when no host of the run needs one.
	Browser Browser
	// Node is the Node.js binary the run found (the Playwright driver's),
	// for hosts that start Node programs; "" when none was looked for.
	Node string
	// ServerURL is the fixture MCP server the host must connect to;
	// SecondServerURL a second one, for cross-server checks.
	ServerURL       string
	SecondServerURL string
	// AppTimeout bounds how long showing and binding the app may take;
	// the runner always sets it (see DefaultAppTimeout).
	AppTimeout time.Duration
	// TraceFile, when set, asks a browser host to record a Playwright trace
	// of the whole run into this file (it may contain page content).
	TraceFile string
	// VideoFile, when set, asks a browser host to record a video (WebM) of
	// its page into this file, saved at teardown (it may show logged-in
	// content). The browser must have been launched to record videos.
	VideoFile string
	// CPUThrottle, when above 1, asks a browser host to slow the
	// renderers of its page and of the page's frames that many times
	// (browserhost.ThrottleCPU), as a loaded machine does: the slowed run
	// that shows no verdict depends on the host's speed
	// (docs/audit-timing.md).
	CPUThrottle float64
	// EvidenceDir is where a host puts evidence it captures itself (a
	// screenshot of a prompt it found, of a failed setup): the run's
	// evidence directory for this host, which the runner sets; "" when the
	// run keeps no evidence (--evidence-dir ""), and then it writes none.
	EvidenceDir string
	Logf        func(format string, args ...any)
}

// Optional interfaces the runner and the orchestration ask a host for.
type (
	// EvidenceTaker records evidence of a failed check (a screenshot of
	// the host page, console lines): files named base.* in dir, returned
	// by path.
	EvidenceTaker interface {
		TakeEvidence(ctx context.Context, dir, base string) ([]string, error)
	}
	// AllowedHoster is a host whose pages load from the public internet
	// (a hosted product): AllowedHosts are the host names (and their
	// subdomains) the browser's loopback guard must let through. It is
	// asked before the browser starts; an error is bad configuration.
	AllowedHoster interface {
		AllowedHosts() ([]string, error)
	}
	// LoginProfiler is a host that needs a logged-in browser session,
	// which `mcpconform login` records. LoginProfile reads the product's
	// configuration through getenv; an error names the variable.
	LoginProfiler interface {
		LoginProfile(getenv func(string) string) (Login, error)
	}
	// BrowserFree is a host that drives no browser (a person connects a
	// desktop host): when every host of a run says so, none is started.
	BrowserFree interface {
		BrowserFree() bool
	}
	// VideoRecorder is a host that recorded a video of its page:
	// VideoStartedAt is when the recording started, so the reports can
	// mark each check's place in it.
	VideoRecorder interface {
		VideoStartedAt() time.Time
	}
	// AppWaiter is a host whose app takes longer to show than
	// DefaultAppTimeout by design (a person sets the host up while the
	// run waits): AppTimeout is its default when the run names none.
	AppWaiter interface {
		AppTimeout() time.Duration
	}
	// SuiteWatcher is a host that watches the suite while it serves a
	// request (a person is asked, and the prompt is withdrawn when the
	// check gives up): the runner hands it the bridge it bound, before
	// the first request.
	SuiteWatcher interface {
		WatchSuite(sb SuiteBridge)
	}
)

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

// AppTimeout is how long h may take to show the app in a run that asked
// for asked (0: no --app-timeout given).
func AppTimeout(h Host, asked time.Duration) time.Duration {
	if asked > 0 {
		return asked
	}
	if w, ok := h.(AppWaiter); ok && w.AppTimeout() > 0 {
		return w.AppTimeout()
	}
	return DefaultAppTimeout
}
