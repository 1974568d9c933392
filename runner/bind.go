package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// The bridges Options.Bridge names.
const (
	// BridgeEvaluate binds the suite in the app frame of a host that
	// offers it (hosts.FrameBinder), the relay otherwise: the default.
	BridgeEvaluate = "evaluate"
	// BridgeRelay reaches every host's suite through the relay alone,
	// with no evaluate in any app frame (`--bridge relay`).
	BridgeRelay = "relay"
)

// Relay is the runner's end of the relay SuiteBridge (bridge/relay): the
// suite, in a View of this run, speaks listTests/start/poll/resolve
// through app-only tools of the fixture server.
type Relay interface {
	// Arm makes the suite's tool results carry this run's relay token, so
	// that the View the host shows next binds to this run.
	Arm()
	// Await waits until a suite View bound to this run has appeared on the
	// relay (or ctx ends) and returns the bridge to it.
	Await(ctx context.Context) (hosts.SuiteBridge, error)
}

// ErrNoRelay means the run must reach the suite through the relay (the
// host offers no app frame, or --bridge relay) and has none.
var ErrNoRelay = errors.New("the suite can be reached only through the relay SuiteBridge, and this run has none")

// viaRelay reports whether the run reaches h's suite through the relay.
func viaRelay(h hosts.Host, o Options) bool {
	_, frame := h.(hosts.FrameBinder)
	return o.Bridge == BridgeRelay || !frame
}

// bindSuite binds the suite of the app h showed: in its frame, or through
// the relay; timeout bounds the wait for the app.
func bindSuite(ctx context.Context, h hosts.Host, o Options, timeout time.Duration) (hosts.SuiteBridge, error) {
	if !viaRelay(h, o) {
		return h.(hosts.FrameBinder).BindSuite(ctx, timeout)
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sb, err := o.Relay.Await(actx)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("no suite View appeared on the relay within %s (--app-timeout): the host must show the View of the fixture server's conformance_suite tool and proxy the View's tools/call to the server (hostCapabilities.serverTools); without serverTools the relay cannot work (%w)", timeout, err)
	}
	return sb, err
}

// pollWait is the long-poll wait over sb: a bridge whose idle polls cost
// the host something asks for longer ones (hosts.PollWaiter).
func pollWait(sb hosts.SuiteBridge, wait time.Duration) time.Duration {
	if pw, ok := sb.(hosts.PollWaiter); ok && wait < pw.MinPollWait() {
		return pw.MinPollWait()
	}
	return wait
}

// RelayDeclined are the capabilities a browser host run with --bridge
// relay answers "unsupported": each reads or clicks inside a View's
// frame (the trigger's position, the suite frame's attributes, a View
// found by its text, the View's message record), which the relay run must
// not touch.
var RelayDeclined = []protocol.Kind{protocol.KindClickTrigger, protocol.KindInspectFrame, protocol.KindCancelTool, protocol.KindCloseView, protocol.KindReadFrameMessages}

// dispatch services req on the host, declining under --bridge relay what
// would reach into a View's frame.
func (d *driver) dispatch(req protocol.Request) protocol.Result {
	if d.o.Bridge == BridgeRelay && slices.Contains(RelayDeclined, req.Kind) {
		r := protocol.Unsupported(req.Kind)
		r.Error = hosts.UnsupportedReason(req.Kind, "under --bridge relay the runner does not reach into the View's frame", "run with --bridge evaluate, the default, where the frame is reachable")
		return r
	}
	if req.Kind == protocol.KindOpenTool {
		return d.openTool.dispatch(req, func() protocol.Result { return hosts.Dispatch(d.ctx, d.h, req) })
	}
	return hosts.Dispatch(d.ctx, d.h, req)
}

// openToolGiveUp is how many openTool failures, with none succeeding
// before them in the run, make the runner stop asking the driver.
const openToolGiveUp = 2

// openToolRecord answers openTool at once, with the failure, once the
// driver has failed it openToolGiveUp times and never made it work in
// this run: a tool picker the driver cannot open (a wrong OPEN_TOOL, a page
// covered by a prompt the driver cannot answer) fails every probe check
// the same way, each after the driver's whole wait (15 s and more), and
// the probe checks queued behind them ran out their limits as TIMEOUTs,
// reds the host did not cause. Once openTool has worked, a failure is the
// tool's or the moment's, and every request goes to the driver.
type openToolRecord struct {
	worked bool
	failed int
	last   string
}

func (o *openToolRecord) dispatch(req protocol.Request, do func() protocol.Result) protocol.Result {
	if !o.worked && o.failed >= openToolGiveUp {
		return protocol.Result{OK: false, Error: fmt.Sprintf("not tried: the driver failed openTool %d times in this run and never made it work (the last: %s)", o.failed, o.last)}
	}
	r := do()
	switch {
	case r.Unsupported:
	case r.OK:
		o.worked = true
	default:
		o.failed++
		o.last = r.Error
	}
	return r
}
