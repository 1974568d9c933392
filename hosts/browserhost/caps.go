package browserhost

import (
	"context"
	"errors"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// The capabilities any browser page offers its driver, the same for every
// browser host: a host that embeds *Base has them (a host whose
// capabilities are configured, like a profile host, says through
// hosts.CapabilitySet whether they count).

// CheckLinkOpen reports whether a new tab or window opened the URL within
// LinkOpenWait.
func (b *Base) CheckLinkOpen(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return b.LinkOpened(ctx, req.URL, LinkOpenWait)
}

// LinkOpenWait is how long CheckLinkOpen waits for the tab. The suite asks
// once the host has answered ui/open-link, after opening it, so the tab's
// request is on its way: the wait only runs out for a host that opened
// nothing, and is generous for a loaded machine (docs/audit-timing.md).
const LinkOpenWait = 15 * time.Second

// InspectFrame reports the attributes of the View's iframe and of the
// sandbox proxy iframe around it, read from the host DOM.
func (b *Base) InspectFrame(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return b.Inspect(ctx)
}

// ReadFrameMessages is in framemessages.go.

// ReadConsole waits up to req.TimeoutMs for console lines matching
// req.Pattern.
func (b *Base) ReadConsole(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return b.ConsoleMatching(ctx, req.Pattern, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// UnsupportedDialog is confirmDialog's answer for a kind of dialog the
// host does not show: unsupported, with the reason why in brackets.
func UnsupportedDialog(req protocol.Request, why string) protocol.Result {
	r := protocol.Unsupported(req.Kind)
	r.Error += " (" + why + ")"
	return r
}

// SetupLog is what a driver's Setup starts with: the run's log (a no-op
// when the environment has none), or an error when there is no fixture
// server to connect the host to.
func SetupLog(env hosts.Env) (func(string, ...any), error) {
	if env.ServerURL == "" {
		return nil, errors.New("no fixture server URL")
	}
	if env.Logf == nil {
		return func(string, ...any) {}, nil
	}
	return env.Logf, nil
}
