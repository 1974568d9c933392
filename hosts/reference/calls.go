package reference

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolCall is one agent tool call whose View is (or was) shown. It runs in
// the background; the page waits for its outcome and may cancel it (Stop).
type toolCall struct {
	id      string
	cancel  context.CancelCauseFunc
	done    chan struct{}
	started time.Time
	took    time.Duration

	// Set before done is closed.
	result    json.RawMessage
	err       error
	cancelled string // the reason, when the host cancelled the call
}

// CallOutcome is what /api/call/wait answers: exactly one field is set.
type CallOutcome struct {
	Result    json.RawMessage `json:"result,omitempty"`
	Cancelled string          `json:"cancelled,omitempty"`
	Error     string          `json:"error,omitempty"`
	// DurationMs is how long the call ran.
	DurationMs int64 `json:"durationMs"`
}

type callRegistry struct {
	mu sync.Mutex
	m  map[string]*toolCall
}

func (r *callRegistry) put(tc *toolCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*toolCall{}
	}
	r.m[tc.id] = tc
}

func (r *callRegistry) get(id string) *toolCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[id]
}

// start runs the launch's tool call on c in the background. Its context is
// not the HTTP request's: the call outlives /api/chat, and only Cancel (or
// closing the host) ends it early. Cancelling makes the SDK send
// notifications/cancelled to the server.
func (r *callRegistry) start(c *conn, l *Launch) {
	ctx, cancel := context.WithCancelCause(context.Background())
	tc := &toolCall{id: l.CallID, cancel: cancel, done: make(chan struct{}), started: time.Now()}
	r.put(tc)
	go func() {
		defer close(tc.done)
		defer func() { tc.took = time.Since(tc.started) }()
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: l.Tool.Name, Arguments: l.Arguments})
		switch {
		case ctx.Err() != nil:
			tc.cancelled = context.Cause(ctx).Error()
		case err != nil:
			tc.err = err
		default:
			tc.result = toJSON(res)
		}
	}()
}

// finished registers a call that already completed.
func (r *callRegistry) finished(id string, result json.RawMessage) {
	tc := &toolCall{id: id, cancel: func(error) {}, done: make(chan struct{}), result: result}
	close(tc.done)
	r.put(tc)
}

// wait blocks until the call ends or ctx is done.
func (r *callRegistry) wait(ctx context.Context, id string) (CallOutcome, error) {
	tc := r.get(id)
	if tc == nil {
		return CallOutcome{}, errors.New("unknown tool call " + id)
	}
	select {
	case <-tc.done:
	case <-ctx.Done():
		return CallOutcome{}, ctx.Err()
	}
	ms := tc.took.Milliseconds()
	switch {
	case tc.cancelled != "":
		return CallOutcome{Cancelled: tc.cancelled, DurationMs: ms}, nil
	case tc.err != nil:
		return CallOutcome{Error: tc.err.Error(), DurationMs: ms}, nil
	default:
		return CallOutcome{Result: tc.result, DurationMs: ms}, nil
	}
}

// cancel cancels a running call with reason and waits (briefly) until it
// has ended. It reports whether the call was still running.
func (r *callRegistry) cancel(id, reason string) bool {
	tc := r.get(id)
	if tc == nil {
		return false
	}
	select {
	case <-tc.done:
		return false
	default:
	}
	tc.cancel(errors.New(reason))
	select {
	case <-tc.done:
	case <-time.After(5 * time.Second):
	}
	return true
}

// cancelAll ends every running call (the host is closing).
func (r *callRegistry) cancelAll() {
	r.mu.Lock()
	var all []*toolCall
	for _, tc := range r.m {
		all = append(all, tc)
	}
	r.mu.Unlock()
	for _, tc := range all {
		tc.cancel(errors.New("the host is closing"))
	}
}
