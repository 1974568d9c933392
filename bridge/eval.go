package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// EvalTimeout bounds one evaluate; the suite's long-poll answers within a
// second, so anything much slower means a hung or dead renderer.
var EvalTimeout = 30 * time.Second

// ErrFrameGone means the frame the evaluator was bound to no longer exists
// (the iframe was removed or replaced); find the frame again.
var ErrFrameGone = errors.New("app frame detached")

// ErrNoContext means no document of the frame answers the probe: it was
// replaced and the new one has not set the channel up yet (a host that
// renders the View again), or it is not the suite's; find the frame again.
var ErrNoContext = errors.New("no execution context answers the probe")

// Evaluator runs script in one frame through its own CDP session with
// userGesture:false. Playwright's own evaluate calls always pass
// userGesture:true, which would give the app frame user activation and make
// every gesture-gated check pass for the wrong reason.
type Evaluator struct {
	bctx  playwright.BrowserContext
	frame playwright.Frame
	// probe, for frames that share a process with an ancestor, picks the
	// right execution context among the ancestor's (e.g. "the one with the
	// channel").
	probe string

	mu        sync.Mutex
	session   playwright.CDPSession
	contextID int // 0: the session's own main frame
	contexts  map[int]bool
}

// NewEvaluator binds an evaluator to frame. probe is a boolean JS expression
// true only in that frame, used when the frame has no CDP session of its own.
func NewEvaluator(bctx playwright.BrowserContext, frame playwright.Frame, probe string) *Evaluator {
	return &Evaluator{bctx: bctx, frame: frame, probe: probe}
}

// Frame is the frame the evaluator is bound to.
func (e *Evaluator) Frame() playwright.Frame { return e.frame }

func (e *Evaluator) open() error {
	if e.frame.IsDetached() {
		return ErrFrameGone
	}
	// An out-of-process frame (or the main frame) has a session of its own.
	if s, err := e.bctx.NewCDPSession(e.frame); err == nil {
		e.session, e.contextID = s, 0
		return nil
	}
	// Otherwise the frame lives in an ancestor's process: enable Runtime on
	// the ancestor's session and find the frame's default context by probe.
	for a := e.frame.ParentFrame(); a != nil; a = a.ParentFrame() {
		s, err := e.bctx.NewCDPSession(a)
		if err != nil {
			continue
		}
		var mu sync.Mutex
		ids := map[int]bool{}
		s.On("Runtime.executionContextCreated", func(p map[string]any) {
			c, _ := p["context"].(map[string]any)
			aux, _ := c["auxData"].(map[string]any)
			if def, _ := aux["isDefault"].(bool); def {
				mu.Lock()
				ids[toInt(c["id"])] = true
				mu.Unlock()
			}
		})
		if _, err := s.Send("Runtime.enable", map[string]any{}); err != nil {
			s.Detach()
			return err
		}
		mu.Lock()
		cands := make([]int, 0, len(ids))
		for id := range ids {
			cands = append(cands, id)
		}
		mu.Unlock()
		for _, id := range cands {
			v, err := evaluate(s, id, e.probe)
			if err == nil && v == "true" {
				e.session, e.contextID = s, id
				return nil
			}
		}
		s.Detach()
		return fmt.Errorf("%w in %s (%q)", ErrNoContext, a.URL(), e.probe)
	}
	return fmt.Errorf("no CDP session reaches frame %s", e.frame.URL())
}

// evalObservers are told of every Eval (ObserveEvaluations).
var evalObservers struct {
	sync.Mutex
	fns map[int]func(playwright.Frame, string)
	n   int
}

// ObserveEvaluations calls fn with the frame and expression of every
// evaluation an Evaluator makes from now on, until stop is called. It is
// the proof that a run reached the suite without evaluating in its frame
// (the relay bridge): every evaluate of the bridge, the suite's discovery
// included, goes through an Evaluator.
func ObserveEvaluations(fn func(frame playwright.Frame, expr string)) (stop func()) {
	o := &evalObservers
	o.Lock()
	defer o.Unlock()
	if o.fns == nil {
		o.fns = map[int]func(playwright.Frame, string){}
	}
	o.n++
	id := o.n
	o.fns[id] = fn
	return func() {
		o.Lock()
		defer o.Unlock()
		delete(o.fns, id)
	}
}

func observeEval(f playwright.Frame, expr string) {
	o := &evalObservers
	o.Lock()
	fns := make([]func(playwright.Frame, string), 0, len(o.fns))
	for _, fn := range o.fns {
		fns = append(fns, fn)
	}
	o.Unlock()
	for _, fn := range fns {
		fn(f, expr)
	}
}

// Eval evaluates a JS expression (which may be a promise) and returns its
// JSON encoding.
func (e *Evaluator) Eval(ctx context.Context, expr string) (json.RawMessage, error) {
	observeEval(e.frame, expr)
	wrapped := "(async () => { const v = await (" + expr + "); return v === undefined ? 'null' : JSON.stringify(v); })()"
	for attempt := 0; ; attempt++ {
		e.mu.Lock()
		if e.session == nil {
			if err := e.open(); err != nil {
				e.mu.Unlock()
				return nil, err
			}
		}
		s, id := e.session, e.contextID
		e.mu.Unlock()

		type res struct {
			v   string
			err error
		}
		ch := make(chan res, 1)
		go func() {
			v, err := evaluate(s, id, wrapped)
			ch <- res{v, err}
		}()
		var r res
		select {
		case r = <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(EvalTimeout):
			// A renderer that never answers is as good as gone.
			e.Reset()
			return nil, fmt.Errorf("the page did not answer within %s", EvalTimeout)
		}
		if r.err == nil {
			return json.RawMessage(r.v), nil
		}
		if attempt == 0 && retryable(r.err) {
			// The document was replaced (reload, remount): rebind once.
			e.Reset()
			continue
		}
		if e.frame.IsDetached() {
			return nil, fmt.Errorf("%w: %v", ErrFrameGone, r.err)
		}
		return nil, r.err
	}
}

// EvalInto evaluates expr and decodes its JSON value into out.
func (e *Evaluator) EvalInto(ctx context.Context, expr string, out any) error {
	raw, err := e.Eval(ctx, expr)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding %.200s: %w", raw, err)
	}
	return nil
}

// Reset drops the session so the next call binds again.
func (e *Evaluator) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session != nil {
		e.session.Detach()
		e.session = nil
	}
}

func retryable(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Cannot find context") || strings.Contains(s, "context was destroyed") ||
		strings.Contains(s, "Target closed") || strings.Contains(s, "Session closed") ||
		strings.Contains(s, "has been closed") || strings.Contains(s, "Execution context")
}

// evaluate runs Runtime.evaluate with userGesture:false and returns the
// result as a string (the wrapped expressions always produce strings).
func evaluate(s playwright.CDPSession, contextID int, expr string) (string, error) {
	params := map[string]any{
		"expression":    expr,
		"awaitPromise":  true,
		"returnByValue": true,
		"userGesture":   false,
	}
	if contextID != 0 {
		params["contextId"] = contextID
	}
	out, err := s.Send("Runtime.evaluate", params)
	if err != nil {
		return "", err
	}
	m, _ := out.(map[string]any)
	if ex, ok := m["exceptionDetails"].(map[string]any); ok {
		msg, _ := ex["text"].(string)
		if exc, ok := ex["exception"].(map[string]any); ok {
			if d, ok := exc["description"].(string); ok {
				msg = d
			}
		}
		return "", fmt.Errorf("script error: %s", msg)
	}
	r, _ := m["result"].(map[string]any)
	switch v := r["value"].(type) {
	case string:
		return v, nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "null", nil
	default:
		b, _ := json.Marshal(v)
		return string(b), nil
	}
}

func toInt(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case int64:
		return int(n)
	}
	return 0
}
