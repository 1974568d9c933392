package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// The checks of the fake suite, in catalogue order: plain ones pass at
// once, checkParks parks a resetIsolation request and passes when the host
// says OK, checkWaits runs until its engine's gate closes (at once when it
// has none).
const (
	checkFirst  = "fake/first"
	checkParks  = "fake/parks"
	checkWaits  = "fake/waits"
	checkLast   = "fake/last"
	fakeVersion = "fake-suite"
)

var fakeCatalogue = []string{checkFirst, checkParks, checkWaits, checkLast}

// fakeEngine is one suite document's engine (fixtures/suite/engine.ts)
// reduced to what the relay carries: a catalogue, a run of checks, a
// parked request, results, and polls that wait for a change.
type fakeEngine struct {
	mu         sync.Mutex
	instance   string
	state      protocol.State
	generation int
	queue      []string
	running    string
	request    *protocol.Request
	seq        int
	results    []protocol.TestResult
	// version counts changes; polled is the version the last poll saw.
	version, polled int
	changed         chan struct{} // closed and replaced on every change
	// gate, when set, holds checkWaits until it is closed.
	gate chan struct{}
}

func newEngine(instance string) *fakeEngine {
	return &fakeEngine{instance: instance, state: protocol.StateIdle, changed: make(chan struct{})}
}

// bump records a change and wakes waiting polls; under mu.
func (e *fakeEngine) bump() {
	e.version++
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *fakeEngine) start(ids []string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state == protocol.StateRunning {
		return false
	}
	if ids == nil {
		ids = fakeCatalogue
	}
	e.state, e.queue, e.results, e.running, e.request = protocol.StateRunning, slices.Clone(ids), nil, "", nil
	e.generation++
	e.advance()
	e.bump()
	return true
}

// advance runs checks until one parks a request or waits, or none is
// left; under mu.
func (e *fakeEngine) advance() {
	for e.request == nil && e.running == "" {
		if len(e.queue) == 0 {
			e.state = protocol.StateDone
			return
		}
		id := e.queue[0]
		e.queue = e.queue[1:]
		e.running = id
		switch {
		case id == checkParks:
			e.seq++
			e.request = &protocol.Request{Seq: e.seq, Kind: protocol.KindResetIsolation}
		case id == checkWaits && e.gate != nil:
			go e.release(id, e.gate)
		default:
			e.finish(protocol.StatusPass)
		}
	}
}

// release ends check id when gate closes.
func (e *fakeEngine) release(id string, gate chan struct{}) {
	<-gate
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running == id {
		e.finish(protocol.StatusPass)
		e.advance()
		e.bump()
	}
}

// finish records the running check's verdict; under mu.
func (e *fakeEngine) finish(s protocol.Status) {
	e.results = append(e.results, protocol.TestResult{ID: e.running, Status: s, DurationMs: 1})
	e.running = ""
}

func (e *fakeEngine) resolve(seq int, r protocol.Result) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.request == nil || e.request.Seq != seq {
		return false
	}
	e.request = nil
	st := protocol.StatusFail
	if r.OK {
		st = protocol.StatusPass
	}
	e.finish(st)
	e.advance()
	e.bump()
	return true
}

func (e *fakeEngine) snapshot() protocol.Poll {
	p := protocol.Poll{Instance: e.instance, State: e.state, RunningID: e.running, Results: slices.Clone(e.results)}
	if e.request != nil {
		r := *e.request
		p.Request = &r
	}
	return p
}

// fakePollCap bounds a poll's wait in the fake (the suite's is 5 s): the
// runner then sees a running check without a long wait.
const fakePollCap = 20 * time.Millisecond

// poll is the relay's poll (relay.ts relayPoll over engine.poll): it
// answers when a request is parked, the run is not running, or the wait
// is over, whichever comes first; ctx is the document's life.
func (e *fakeEngine) poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	wait = min(wait, fakePollCap)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		e.mu.Lock()
		p, fresh, ch := e.snapshot(), e.version != e.polled, e.changed
		e.polled = e.version
		e.mu.Unlock()
		if fresh && (p.Request != nil || p.State != protocol.StateRunning) {
			return p, nil
		}
		select {
		case <-ch:
		case <-timer.C:
			e.mu.Lock()
			p = e.snapshot()
			e.polled = e.version
			e.mu.Unlock()
			return p, nil
		case <-ctx.Done():
			return protocol.Poll{}, ctx.Err()
		}
	}
}

// pollArgs are what the runner tells the View it has (bridge/relay).
type pollArgs struct {
	Wait       int64  `json:"wait"`
	Since      int    `json:"since"`
	Instance   string `json:"instance"`
	Generation int    `json:"generation"`
}

// delta is the poll as the relay carries it: the results the runner does
// not have yet (relay.ts delta).
func (e *fakeEngine) delta(p protocol.Poll, a pollArgs) map[string]any {
	e.mu.Lock()
	gen := e.generation
	e.mu.Unlock()
	from := 0
	if a.Instance == p.Instance && a.Generation == gen && a.Since >= 0 && a.Since <= len(p.Results) {
		from = a.Since
	}
	return map[string]any{"instance": p.Instance, "state": p.State, "runningId": p.RunningID, "request": p.Request,
		"results": p.Results[from:], "resultsFrom": from, "generation": gen}
}

// run executes one relay command as relay.ts run does.
func (e *fakeEngine) run(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	var a struct {
		pollArgs
		IDs    []string        `json:"ids"`
		Seq    int             `json:"seq"`
		Result protocol.Result `json:"result"`
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
	}
	wait := time.Duration(a.Wait) * time.Millisecond
	switch method {
	case "listTests":
		l := protocol.SuiteList{ProtocolVersion: protocol.Version, SuiteVersion: fakeVersion}
		for _, id := range fakeCatalogue {
			l.Tests = append(l.Tests, protocol.TestMeta{ID: id, Name: id, Clause: protocol.ClauseMust})
		}
		return l, nil
	case "start":
		return e.start(a.IDs), nil
	case "poll":
		p, err := e.poll(ctx, wait)
		if err != nil {
			return nil, err
		}
		return e.delta(p, a.pollArgs), nil
	case "resolve":
		return e.resolve(a.Seq, a.Result), nil
	case "resolveAndPoll":
		ok := e.resolve(a.Seq, a.Result)
		p, err := e.poll(ctx, wait)
		if err != nil {
			return nil, err
		}
		return map[string]any{"accepted": ok, "poll": e.delta(p, a.pollArgs)}, nil
	}
	return nil, errors.New("unknown relay method " + method)
}

// fakeView is a suite View's relay client (fixtures/suite/relay.ts) over
// an MCP client session: hello with the token, then next calls, each
// carrying the answer to the last command, and bye when it goes away. Its
// document can be destroyed at any moment (die): from then on it sends
// nothing, and what it was doing is lost.
type fakeView struct {
	t        testing.TB
	cs       *mcp.ClientSession
	token    string
	instance string
	eng      *fakeEngine
	// life is the document's life: die cancels it.
	life context.Context
	kill context.CancelFunc
	// onCommand, when set, sees each command before the View runs it;
	// it may destroy the View (a remount holding that command).
	onCommand func(v *fakeView, method string)

	mu  sync.Mutex
	key string
	n   int64
	// ran are the methods of the commands the View ran, in order.
	ran []string
	// saw are the checks its answered polls showed running.
	saw map[string]bool
}

func newFakeView(t testing.TB, cs *mcp.ClientSession, token, instance string) *fakeView {
	life, kill := context.WithCancel(context.Background())
	t.Cleanup(kill)
	return &fakeView{t: t, cs: cs, token: token, instance: instance, eng: newEngine(instance), life: life, kill: kill, saw: map[string]bool{}}
}

// relayReply is a relay call's answer; refused is the refusal's text.
type relayReply struct {
	Key     string `json:"key"`
	Closed  bool   `json:"closed"`
	Command *struct {
		ID     int             `json:"id"`
		Method string          `json:"method"`
		Args   json.RawMessage `json:"args"`
	} `json:"command"`
	refused string
}

func (v *fakeView) call(args map[string]any) (relayReply, error) {
	args["token"] = v.token
	res, err := v.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolRelay, Arguments: args})
	if err != nil {
		return relayReply{}, err
	}
	var r relayReply
	if res.IsError {
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				r.refused += tc.Text
			}
		}
		return r, nil
	}
	b, _ := json.Marshal(res.StructuredContent)
	return r, json.Unmarshal(b, &r)
}

// hello binds the View, or says why not.
func (v *fakeView) hello() (refused string) {
	r, err := v.call(map[string]any{"op": "hello", "instance": v.instance})
	if err != nil {
		v.t.Errorf("%s: hello: %v", v.instance, err)
		return err.Error()
	}
	v.mu.Lock()
	v.key = r.Key
	v.mu.Unlock()
	return r.refused
}

// nextN is the counter of the View's next call.
func (v *fakeView) nextN() (string, int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n++
	return v.key, v.n
}

func (v *fakeView) alive() bool { return v.life.Err() == nil }

// serve runs the View's relay loop until the View dies, is refused or
// the run closes.
func (v *fakeView) serve() {
	var answer map[string]any
	for v.alive() {
		key, n := v.nextN()
		args := map[string]any{"op": "next", "key": key, "n": n}
		if answer != nil {
			args["answer"] = answer
		}
		r, err := v.call(args)
		answer = nil
		if !v.alive() {
			return // the answer reached a document that is gone
		}
		if err != nil {
			v.t.Errorf("%s: next: %v", v.instance, err)
			return
		}
		if r.refused != "" {
			return // the hub records why (expectVerdicts)
		}
		if r.Closed {
			return
		}
		if r.Command == nil {
			continue // idle: the hold ended
		}
		if v.onCommand != nil {
			v.onCommand(v, r.Command.Method)
			if !v.alive() {
				return
			}
		}
		val, err := v.eng.run(v.life, r.Command.Method, r.Command.Args)
		if !v.alive() {
			return
		}
		v.mu.Lock()
		v.ran = append(v.ran, r.Command.Method)
		if p, ok := val.(map[string]any); ok {
			if inner, ok := p["poll"].(map[string]any); ok {
				p = inner
			}
			if id, _ := p["runningId"].(string); id != "" {
				v.saw[id] = true
			}
		}
		v.mu.Unlock()
		answer = map[string]any{"id": r.Command.ID}
		if err != nil {
			answer["error"] = err.Error()
		} else {
			answer["value"] = val
		}
	}
}

// sawRunning reports whether a poll answer of the View showed check id
// running (so the runner has seen it, once it sends another command).
func (v *fakeView) sawRunning(id string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.saw[id]
}

// die destroys the View's document: it says bye first when graceful is
// set (the host's ui/resource-teardown, or pagehide), as relay.ts does.
func (v *fakeView) die(graceful bool) {
	if graceful {
		key, n := v.nextN()
		r, err := v.call(map[string]any{"op": "bye", "key": key, "n": n})
		if err != nil || r.refused != "" {
			v.t.Errorf("%s: bye: %v %s", v.instance, err, r.refused)
		}
	}
	v.kill()
}

// remountBench is one relay run's pieces: the fixture server with its
// hub, a host session, the token of the run's suite call, and how a View
// goes away.
type remountBench struct {
	t     *testing.T
	hub   *mcpserver.Hub
	cs    *mcp.ClientSession
	token string
	// graceful Views say bye when they go away; the others go silently.
	graceful bool
}

// eachWayOfGoing runs f with Views that go away saying bye (the host's
// ui/resource-teardown) and with Views that go silently (a host that
// drops the frame: relay.ts's pagehide bye does not get through a sandbox
// proxy that already shows the fresh frame).
func eachWayOfGoing(t *testing.T, f func(t *testing.T, b *remountBench)) {
	for _, graceful := range []bool{true, false} {
		name := "bye"
		if !graceful {
			name = "silent"
		}
		t.Run(name, func(t *testing.T) { f(t, newRemountBench(t, graceful)) })
	}
}

func newRemountBench(t *testing.T, graceful bool) *remountBench {
	t.Helper()
	s := mcpserver.New(mcpserver.Options{SuiteHTML: "<!doctype html><title>suite</title>"})
	hub := s.Relay()
	// A View that said bye is gone at once, so with bye no timer decides
	// who is bound. A silent one is gone once it made no call for
	// Liveness, after its pending call ends at Hold: short, so the fresh
	// View binds soon; the run must not care when.
	hub.Liveness, hub.Rebind = time.Hour, time.Hour
	if !graceful {
		hub.Hold, hub.Liveness = 20*time.Millisecond, 50*time.Millisecond
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(mcpserver.ExtensionID, map[string]any{"mimeTypes": []string{mcpserver.MIMEType}})
	c := mcp.NewClient(&mcp.Implementation{Name: "fake-host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &remountBench{t: t, hub: hub, cs: cs, graceful: graceful}
}

// suiteToken calls the suite tool as the host does and returns the relay
// token its result carries.
func (b *remountBench) suiteToken() string {
	b.t.Helper()
	res, err := b.cs.CallTool(b.t.Context(), &mcp.CallToolParams{Name: mcpserver.ToolSuite, Arguments: map[string]any{"nonce": "n"}})
	if err != nil {
		b.t.Fatalf("calling %s: %v", mcpserver.ToolSuite, err)
	}
	tok, _ := res.Meta[mcpserver.RelayMetaKey].(string)
	if tok == "" {
		b.t.Fatalf("the %s result carries no relay token: is the run armed?", mcpserver.ToolSuite)
	}
	return tok
}

// view is a new View of the run's suite call.
func (b *remountBench) view(instance string) *fakeView {
	return newFakeView(b.t, b.cs, b.token, instance)
}

// refusedWhileBound is the start of the refusal of a hello while another
// View of the run is alive.
const refusedWhileBound = "another View is bound"

// bind says v's hello until it binds, as relay.ts does: while another
// View of the run is alive (one that went silently, until its liveness
// lapses) the hello is refused and tried again.
func (b *remountBench) bind(v *fakeView) {
	for {
		why := v.hello()
		if why == "" {
			return
		}
		if !strings.Contains(why, refusedWhileBound) {
			b.t.Errorf("%s: hello refused: %s", v.instance, why)
			return
		}
		select {
		case <-b.t.Context().Done():
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// remount replaces old by a fresh View of the same tool result, as a host
// that re-renders it does: old goes away, the fresh one says hello and
// serves.
func (b *remountBench) remount(old *fakeView, instance string) *fakeView {
	old.die(b.graceful)
	v := b.view(instance)
	b.bind(v)
	go v.serve()
	return v
}

// resetHost is a host whose only capability is resetIsolation; onReset
// runs inside it (a remount while the request is parked).
type resetHost struct {
	onReset func()
	resets  int
}

func (h *resetHost) Name() string { return "fake" }
func (h *resetHost) Setup(context.Context, hosts.Env) error {
	return errors.New("not used: the test drives the runner")
}
func (h *resetHost) Teardown(context.Context) error { return nil }
func (h *resetHost) ResetIsolation(context.Context, protocol.Request) (protocol.Result, error) {
	h.resets++
	if h.onReset != nil {
		h.onReset()
	}
	return protocol.Result{OK: true}, nil
}
