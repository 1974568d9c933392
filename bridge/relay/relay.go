// Package relay is the relay SuiteBridge: the runner's end of the suite's
// channel carried through the fixture server's own MCP tool
// (mcpserver.ToolRelay) instead of an evaluate in the app frame. The View
// long-polls that tool with tools/call, which the host proxies; the runner
// side is in-process in the fixture server (mcpserver.RelayRun). It is the
// transport of hosts whose app frame the runner cannot reach (a desktop or
// mobile host, `--host connect`), and of browser hosts run with
// `--bridge relay`.
//
// What it needs from the host: that it show the conformance_suite View with
// the tool's result (which carries the run's relay token) and proxy the
// View's tools/call to the fixture server (hostCapabilities.serverTools).
// Without serverTools the relay cannot work; Await says so when no View
// appears.
//
// One runner call is one command to the View and one tools/call round trip.
// A poll carries only the results the runner does not have yet (the View
// is told how many it has, of which suite instance and start generation),
// so a run's traffic does not grow with the square of its checks.
//
// Bound to its run: see mcpserver/relay.go (tokens minted per
// conformance_suite call while the run is armed, a key per View, a counter
// that must grow; another View, a replayed call or a stale key is
// refused).
package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// ErrNoView means no suite View bound to the relay in time.
var ErrNoView = errors.New("no conformance suite View appeared on the relay")

// Relay is one run's hosts.Relay.
type Relay struct {
	run *mcpserver.RelayRun
}

// New is the relay of a new run of hub. Arm it before the host calls
// conformance_suite when the View must use it (a browser host run with
// --bridge relay); Await arms it too. Close it when the run ends.
func New(hub *mcpserver.Hub) *Relay { return &Relay{run: hub.NewRun()} }

// Arm makes the suite's tool results carry this run's relay token.
func (r *Relay) Arm() { r.run.Arm() }

// Close ends the run's relay.
func (r *Relay) Close() { r.run.Close() }

// Run is the fixture server's side of this relay.
func (r *Relay) Run() *mcpserver.RelayRun { return r.run }

// Await arms the relay and waits until a suite View of this run has said
// hello, then returns the bridge to it.
func (r *Relay) Await(ctx context.Context) (hosts.SuiteBridge, error) {
	if err := r.run.Await(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%v)", ErrNoView, ctx.Err())
		}
		return nil, err
	}
	return &Bridge{run: r.run}, nil
}

// Bridge is the relay SuiteBridge (and hosts.ResolvePoller).
type Bridge struct {
	run *mcpserver.RelayRun

	mu sync.Mutex
	// The results the runner has, of which instance and generation.
	instance   string
	generation int
	results    []protocol.TestResult
	// facts are the host's facts of instance's polls, sent once.
	hostInfo, hostCapabilities, hostContext json.RawMessage
}

var (
	_ hosts.SuiteBridge   = (*Bridge)(nil)
	_ hosts.ResolvePoller = (*Bridge)(nil)
	_ hosts.PollWaiter    = (*Bridge)(nil)
)

// MinPollWait is the least long-poll wait over the relay: each idle poll
// is a tools/call through the host, which some hosts log and render (the
// suite caps a poll's wait at 5 s, and answers as soon as something
// changes).
func (b *Bridge) MinPollWait() time.Duration { return PollWait }

// PollWait is the relay's least long-poll wait (Bridge.MinPollWait).
const PollWait = 5 * time.Second

// callTimeout bounds one command: the View's own wait plus the time an
// evaluate is given.
func callTimeout(wait time.Duration) time.Duration { return wait + bridge.EvalTimeout }

func (b *Bridge) call(ctx context.Context, method string, args any, wait time.Duration, out any) error {
	raw, err := b.run.Call(ctx, method, args, callTimeout(wait))
	if err != nil {
		return err
	}
	if len(raw) > hosts.MaxPayload {
		return fmt.Errorf("%w: %d bytes, more than the %d allowed", hosts.ErrMalformed, len(raw), hosts.MaxPayload)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: %s: %v", hosts.ErrMalformed, method, err)
	}
	return nil
}

// ListTests returns the suite's catalogue.
func (b *Bridge) ListTests(ctx context.Context) (protocol.SuiteList, error) {
	var l protocol.SuiteList
	err := b.call(ctx, "listTests", nil, 0, &l)
	return l, err
}

// Start starts the tests with these ids (all when ids is nil).
func (b *Bridge) Start(ctx context.Context, ids []string) error {
	var ok bool
	if err := b.call(ctx, "start", map[string]any{"ids": ids}, 0, &ok); err != nil {
		return err
	}
	if !ok {
		return errors.New("the suite refused to start: a run is already in progress")
	}
	return nil
}

// pollArgs tells the View what the runner has, so it sends only the rest.
func (b *Bridge) pollArgs(extra map[string]any) map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	extra["since"], extra["instance"], extra["generation"] = len(b.results), b.instance, b.generation
	extra["facts"] = len(b.hostInfo) == 0 && len(b.hostCapabilities) == 0 && len(b.hostContext) == 0
	return extra
}

// relayPoll is a Poll as the relay carries it: Results are those from
// index ResultsFrom on.
type relayPoll struct {
	protocol.Poll
	ResultsFrom int `json:"resultsFrom"`
	Generation  int `json:"generation"`
}

// merge completes a relayed poll with the results the runner had.
func (b *Bridge) merge(rp relayPoll) (protocol.Poll, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case rp.ResultsFrom == 0:
		b.results = slices.Clone(rp.Results)
	case rp.Instance == b.instance && rp.Generation == b.generation && rp.ResultsFrom == len(b.results):
		b.results = append(b.results, rp.Results...)
	default:
		return protocol.Poll{}, fmt.Errorf("%w: results from %d of instance %q generation %d, the runner has %d of %q generation %d",
			hosts.ErrMalformed, rp.ResultsFrom, rp.Instance, rp.Generation, len(b.results), b.instance, b.generation)
	}
	if rp.Instance != b.instance {
		b.hostInfo, b.hostCapabilities, b.hostContext = nil, nil, nil
	}
	b.instance, b.generation = rp.Instance, rp.Generation
	// The View sends the host's facts until the runner has them.
	if len(rp.HostInfo) > 0 || len(rp.HostCapabilities) > 0 || len(rp.HostContext) > 0 {
		b.hostInfo, b.hostCapabilities, b.hostContext = rp.HostInfo, rp.HostCapabilities, rp.HostContext
	}
	p := rp.Poll
	p.HostInfo, p.HostCapabilities, p.HostContext = b.hostInfo, b.hostCapabilities, b.hostContext
	p.Results = slices.Clone(b.results)
	if p.Results == nil {
		p.Results = []protocol.TestResult{}
	}
	return p, nil
}

// Poll long-polls the suite: the View answers as soon as something
// changed, or after wait at most.
func (b *Bridge) Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	var rp relayPoll
	if err := b.call(ctx, "poll", b.pollArgs(map[string]any{"wait": wait.Milliseconds()}), wait, &rp); err != nil {
		return protocol.Poll{}, err
	}
	return b.merge(rp)
}

// Resolve answers the parked request seq.
func (b *Bridge) Resolve(ctx context.Context, seq int, r protocol.Result) (bool, error) {
	var ok bool
	err := b.call(ctx, "resolve", map[string]any{"seq": seq, "result": r}, 0, &ok)
	return ok, err
}

// ResolveAndPoll answers the parked request seq and long-polls in the
// same command.
func (b *Bridge) ResolveAndPoll(ctx context.Context, seq int, r protocol.Result, wait time.Duration) (bool, *protocol.Poll, error) {
	var rp struct {
		Accepted bool       `json:"accepted"`
		Poll     *relayPoll `json:"poll"`
	}
	args := b.pollArgs(map[string]any{"seq": seq, "result": r, "wait": wait.Milliseconds()})
	if err := b.call(ctx, "resolveAndPoll", args, wait, &rp); err != nil {
		return false, nil, err
	}
	if rp.Poll == nil {
		return rp.Accepted, nil, nil
	}
	p, err := b.merge(*rp.Poll)
	if err != nil {
		return rp.Accepted, nil, err
	}
	return rp.Accepted, &p, nil
}

// Trigger reports the trigger button's geometry and the frame's activation,
// as the View sees them.
func (b *Bridge) Trigger(ctx context.Context) (protocol.TriggerInfo, error) {
	var t protocol.TriggerInfo
	err := b.call(ctx, "trigger", nil, 0, &t)
	return t, err
}

// ConfigureDiag sets a diagnostic's settings in the View (the bench's
// round-trip counts; fixtures/suite/diag.ts), as the evaluate bridge's
// runs set them with an evaluate.
func (b *Bridge) ConfigureDiag(ctx context.Context, cfg map[string]int) error {
	var ok bool
	return b.call(ctx, "diag", cfg, 0, &ok)
}
