// Package connect is `--host connect`: a host peer with no browser, for
// hosts whose app iframe mcpconform cannot reach (Claude Desktop, ChatGPT's
// desktop and mobile apps, VS Code without a debug port, a host on another
// machine). It drives nothing. Setup prints the fixture server's URL and
// what to do in the host: connect the server (Streamable HTTP), ask for
// the conformance_suite tool, keep its View open; then it waits, up to
// --app-timeout, for that View's suite to appear: with no app frame to
// offer, the runner reaches it through the View's own tools/call to the
// fixture server, a call the host proxies.
//
// Without an operator every capability is unsupported, so the checks that
// need none are judged and the rest skip by name. With an operator
// (--operator, a person at the terminal; internal/operator) the
// capabilities a person can perform are asked of them, one prompt each.
package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/operator"
	"github.com/mcpconform/mcpconform/protocol"
)

// Name is the host's --host name.
const Name = "connect"

func init() { hosts.Register(Name, FromParams) }

// FromParams is the connect host of a run: its operator, with --operator
// (MCPCONFORM_OPERATOR), is the person at p's terminal, and its
// instructions go to p.Out.
func FromParams(p hosts.Params) (hosts.Host, error) {
	if err := p.Unaltered(); err != nil {
		return nil, err
	}
	s, err := ReadSettings(p.Environ)
	if err != nil {
		return nil, hosts.UsageError("%w", err)
	}
	op, err := s.NewOperator(p.In, p.Out)
	if err != nil {
		return nil, hosts.UsageError("%w", err)
	}
	return New(Options{Operator: op, Out: p.Out}), nil
}

// Options configure a connect host.
type Options struct {
	// Operator performs the capabilities a person can (operator.Kinds);
	// nil: every capability is unsupported.
	Operator *operator.Operator
	// Out receives the instructions; nil: Env.Logf, line by line.
	Out io.Writer
}

// Host is the connect host. Its capabilities are those a person can
// perform, all through Perform (hosts.Performer); Supports says they count
// only with an operator.
type Host struct {
	o   Options
	env hosts.Env         // Setup's, for messages
	sb  hosts.SuiteBridge // the suite, once the runner bound it
}

// New is a connect host.
func New(o Options) *Host { return &Host{o: o} }

// Name is "connect".
func (h *Host) Name() string { return Name }

// BrowserFree is true: the run starts no browser for this host.
func (h *Host) BrowserFree() bool { return true }

// AppTimeout is how long the run waits for the suite by default
// (hosts.AppWaiter): the person adds the server and asks for the tool
// while it waits.
func (h *Host) AppTimeout() time.Duration { return AppTimeout }

// Supports reports whether the operator can perform k: never without one.
func (h *Host) Supports(k protocol.Kind) bool { return h.o.Operator != nil && operator.Supports(k) }

// HowToProvide ends the SKIP reason of a capability the connected host
// lacks: the generic table speaks of env profiles and Go drivers, which do
// not apply to a host nobody drives.
func (h *Host) HowToProvide(k protocol.Kind) string {
	if operator.Supports(k) {
		if h.o.Operator == nil {
			return "run with --operator at a terminal, and perform it in the host when asked"
		}
		return ""
	}
	return "no person at a terminal can perform it for --host connect; a host driven in a browser (a built-in driver or an env profile) can"
}

// Instructions is what Setup prints: the servers' URLs and what to do in
// the host.
func Instructions(serverURL, secondURL string, o Options, appTimeout string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--host connect: mcpconform drives no host; do this in the host under test:\n")
	fmt.Fprintf(&b, "  1. add an MCP server, transport Streamable HTTP, URL:\n\n       %s\n\n", serverURL)
	fmt.Fprintf(&b, "     (a host that only launches local servers: the command  mcpconform stdio %s)\n", serverURL)
	if secondURL != "" {
		fmt.Fprintf(&b, "     (optional, for visibility/cross-server-blocked: a second server, %s)\n", secondURL)
	}
	fmt.Fprintf(&b, "  2. ask for its %s tool, e.g. \"Call the %s tool with any nonce.\" (approve the call if the host asks)\n", mcpserver.ToolSuite, mcpserver.ToolSuite)
	fmt.Fprintf(&b, "  3. keep the tool's View (the conformance suite) open and visible until the run ends; do not reload it\n")
	fmt.Fprintf(&b, "  The host must proxy the View's tools/call to the server (hostCapabilities.serverTools).\n")
	if o.Operator != nil {
		fmt.Fprintf(&b, "  --operator: checks that need something done in the host will ask you here, each prompt with %s to answer.\n", o.Operator.Timeout())
	} else {
		fmt.Fprintf(&b, "  Without --operator, checks that need something done in the host skip by name.\n")
	}
	fmt.Fprintf(&b, "Waiting up to %s (--app-timeout) for the suite to connect…\n", appTimeout)
	return b.String()
}

// Setup prints the instructions. The runner then waits, up to
// env.AppTimeout, for the suite's View to call the fixture server: this
// host offers no app frame.
func (h *Host) Setup(ctx context.Context, env hosts.Env) error {
	if env.ServerURL == "" {
		return errors.New("--host connect: the run has no fixture server URL to give the host")
	}
	h.say(env, Instructions(env.ServerURL, env.SecondServerURL, h.o, env.AppTimeout.String()))
	h.env = env
	return nil
}

// WatchSuite keeps the bridge the runner bound (hosts.SuiteWatcher): a
// prompt is withdrawn when the check it serves gives up.
func (h *Host) WatchSuite(sb hosts.SuiteBridge) {
	h.say(h.env, "The suite connected; running the checks. Keep the View open.\n")
	h.sb = sb
}

// Teardown tells the person the View may close.
func (h *Host) Teardown(ctx context.Context) error {
	if h.o.Out != nil {
		fmt.Fprintln(h.o.Out, "--host connect: the run is over; you may close the View.")
	}
	return nil
}

func (h *Host) say(env hosts.Env, s string) {
	if h.o.Out != nil {
		io.WriteString(h.o.Out, s)
		return
	}
	if env.Logf == nil {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		env.Logf("%s", l)
	}
}

// errWithdrawn ends a prompt whose request the suite no longer waits for.
var errWithdrawn = errors.New("the check ended before an answer (its time limit in the suite ran out)")

// Perform asks the operator for req (hosts.Performer: every capability
// Supports allows, each one prompt). While the prompt is open, the suite
// is watched: when the check gives up on the request (its own time limit
// ran out, or the View was reloaded), the prompt is withdrawn at once
// rather than asking the person for something no one waits for. The
// runner is blocked in this dispatch meanwhile, so the watch is the
// bridge's only caller; it has ended when Perform returns.
func (h *Host) Perform(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if h.o.Operator == nil {
		return protocol.Unsupported(req.Kind), nil
	}
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	if h.sb != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			watch(pctx, h.sb, req.Seq, cancel)
		}()
	}
	r, err := h.o.Operator.Perform(pctx, req)
	cancel(nil)
	wg.Wait()
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(pctx), errWithdrawn) {
		return protocol.Result{OK: false, Error: "the operator was asked, but " + errWithdrawn.Error()}, nil
	}
	return r, err
}

// watchWait bounds each of the watch's long-polls. It is short: the View
// serves one runner command at a time, so the resolve that follows the
// person's answer waits behind the watch's last poll for up to this long.
const watchWait = time.Second

// watch long-polls the suite until request seq is no longer parked, then
// cancels with errWithdrawn; it leaves a bridge error to the runner.
func watch(ctx context.Context, sb hosts.SuiteBridge, seq int, cancel context.CancelCauseFunc) {
	for ctx.Err() == nil {
		p, err := sb.Poll(ctx, watchWait)
		if err != nil {
			return
		}
		if p.Request == nil || p.Request.Seq != seq {
			cancel(errWithdrawn)
			return
		}
	}
}

var (
	_ hosts.Performer     = (*Host)(nil)
	_ hosts.ProvideHinter = (*Host)(nil)
)
