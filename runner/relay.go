package runner

import (
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// RelayPollWait is the least long-poll wait over the relay (the suite
// caps a poll's wait at 5 s).
const RelayPollWait = 5 * time.Second

// relayed reports whether sb reaches the suite without evaluating in its
// frame (bridge/relay).
func relayed(sb hosts.SuiteBridge) bool {
	r, ok := sb.(interface{ Relayed() bool })
	return ok && r.Relayed()
}

// RelayDeclined are the capabilities a browser host run with --bridge
// relay answers "unsupported": each reads or clicks inside a View's
// frame (the trigger's position, the suite frame's attributes, a View
// found by its text), which the relay run must not touch.
var RelayDeclined = []protocol.Kind{protocol.KindClickTrigger, protocol.KindInspectFrame, protocol.KindCancelTool, protocol.KindCloseView}

// dispatch services req on the host, declining under --bridge relay what
// would reach into a View's frame.
func (d *driver) dispatch(req protocol.Request) protocol.Result {
	if d.o.Env.Bridge == hosts.BridgeRelay && slices.Contains(RelayDeclined, req.Kind) {
		r := protocol.Unsupported(req.Kind)
		r.Error += " (under --bridge relay the runner does not reach into the View's frame; " + judgeable + "run with --bridge evaluate, the default, where the frame is reachable)"
		return r
	}
	return hosts.Dispatch(d.ctx, d.h, req)
}
