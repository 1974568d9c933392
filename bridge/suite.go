package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// ErrNoSuite means no frame of the page carries the suite's channel.
var ErrNoSuite = errors.New("the conformance app never appeared in the host")

const channelProbe = "typeof globalThis." + protocol.ChannelName + " === 'object'"

// Suite talks to window.__mcpConformance in the app frame.
type Suite struct {
	bctx  playwright.BrowserContext
	page  playwright.Page
	chain []string
	ev    *Evaluator
}

// FindSuite waits up to timeout for the app frame and binds to it. chain is
// the host's address of the app iframe as a list of iframe selectors from
// the top page down (each resolved inside the frame the previous one names);
// when it does not lead to the suite, every frame of the page is scanned for
// the channel instead.
func FindSuite(ctx context.Context, bctx playwright.BrowserContext, page playwright.Page, chain []string, timeout time.Duration) (*Suite, error) {
	s := &Suite{bctx: bctx, page: page, chain: chain}
	if err := s.find(ctx, timeout); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Suite) find(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if f, err := s.viaChain(deadline); err == nil {
			if ev, ok := s.bind(ctx, f); ok {
				s.ev = ev
				return nil
			}
		} else {
			last = err
		}
		for _, f := range s.page.Frames() {
			if f == s.page.MainFrame() {
				continue
			}
			if ev, ok := s.bind(ctx, f); ok {
				s.ev = ev
				return nil
			}
		}
		if time.Now().After(deadline) {
			if last != nil {
				// The first line of last: Playwright appends a call log,
				// which a message cut at its first line lost with the
				// closing parenthesis.
				why, _, _ := strings.Cut(strings.TrimSpace(last.Error()), "\n")
				return fmt.Errorf("%w within %s (frame chain %q: %s)", ErrNoSuite, timeout, s.chain, why)
			}
			return fmt.Errorf("%w within %s", ErrNoSuite, timeout)
		}
		// Condition wait: the next frame event, or a short interval at most.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *Suite) viaChain(deadline time.Time) (playwright.Frame, error) {
	if len(s.chain) == 0 {
		return nil, errors.New("no frame chain")
	}
	f := s.page.MainFrame()
	for _, sel := range s.chain {
		ms := float64(time.Until(deadline).Milliseconds())
		if ms < 1 {
			ms = 1
		}
		eh, err := f.Locator(sel).First().ElementHandle(playwright.LocatorElementHandleOptions{Timeout: &ms})
		if err != nil {
			return nil, fmt.Errorf("selector %q in %s: %w", sel, f.URL(), err)
		}
		next, err := eh.ContentFrame()
		if err != nil || next == nil {
			return nil, fmt.Errorf("selector %q in %s is not an iframe with a document", sel, f.URL())
		}
		f = next
	}
	return f, nil
}

func (s *Suite) bind(ctx context.Context, f playwright.Frame) (*Evaluator, bool) {
	ev := NewEvaluator(s.bctx, f, channelProbe)
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	raw, err := ev.Eval(c, channelProbe)
	if err != nil || string(raw) != "true" {
		ev.Reset()
		return nil, false
	}
	return ev, true
}

// Frame is the app frame the suite runs in.
func (s *Suite) Frame() playwright.Frame { return s.ev.Frame() }

// Evaluator is the gesture-free evaluator bound to the app frame.
func (s *Suite) Evaluator() *Evaluator { return s.ev }

// call evaluates expr in the app frame, finding the frame again once if the
// host replaced it or its document (a View rendered again, whose new
// document sets the channel up a moment later: the runner's answer to a
// request, made in that moment, ended the run as "lost contact", CI
// 2026-12-06 under a defect that re-renders the View; the remount is the
// runner's to judge).
func (s *Suite) call(ctx context.Context, expr string, out any) error {
	raw, err := s.ev.Eval(ctx, expr)
	if errors.Is(err, ErrFrameGone) || errors.Is(err, ErrNoContext) {
		if ferr := s.find(ctx, 10*time.Second); ferr != nil {
			return fmt.Errorf("%v; %w", err, ferr)
		}
		raw, err = s.ev.Eval(ctx, expr)
	}
	if err != nil {
		return err
	}
	if len(raw) > hosts.MaxPayload {
		return fmt.Errorf("%w: %d bytes, more than the %d allowed", hosts.ErrMalformed, len(raw), hosts.MaxPayload)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%w: %v", hosts.ErrMalformed, err)
	}
	return nil
}

const ch = "globalThis." + protocol.ChannelName

// ListTests returns the suite's catalogue.
func (s *Suite) ListTests(ctx context.Context) (protocol.SuiteList, error) {
	var l protocol.SuiteList
	err := s.call(ctx, ch+".listTests()", &l)
	return l, err
}

// Start starts the tests with these ids (all when ids is nil).
func (s *Suite) Start(ctx context.Context, ids []string) error {
	arg := "null"
	if ids != nil {
		b, _ := json.Marshal(ids)
		arg = string(b)
	}
	var ok bool
	if err := s.call(ctx, ch+".start("+arg+")", &ok); err != nil {
		return err
	}
	if !ok {
		return errors.New("the suite refused to start: a run is already in progress")
	}
	return nil
}

// Poll long-polls the suite: it returns as soon as something changed, or
// after wait at most.
func (s *Suite) Poll(ctx context.Context, wait time.Duration) (protocol.Poll, error) {
	var p protocol.Poll
	err := s.call(ctx, ch+".poll("+strconv.Itoa(int(wait.Milliseconds()))+")", &p)
	return p, err
}

// Resolve answers the parked request seq. It reports false when the suite
// no longer waits for it (the test timed out meanwhile).
func (s *Suite) Resolve(ctx context.Context, seq int, r protocol.Result) (bool, error) {
	lit, err := resultLiteral(r)
	if err != nil {
		return false, err
	}
	var ok bool
	err = s.call(ctx, fmt.Sprintf("%s.resolve(%d, JSON.parse(%s))", ch, seq, lit), &ok)
	return ok, err
}

// resultLiteral encodes r as a JS string literal of its JSON: the result
// travels as data parsed in the page, never as script text.
func resultLiteral(r protocol.Result) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	lit, _ := json.Marshal(string(b))
	return string(lit), nil
}

// ResolveAndPoll answers the parked request seq and long-polls in the same
// evaluate, so a dispatch round trip costs one trip to the page, not two
// (resolve, then poll). It reports whether the suite took the result and
// its next change; the Poll is nil when the page has no resolveAndPoll (an
// older suite), and the caller polls as before.
func (s *Suite) ResolveAndPoll(ctx context.Context, seq int, r protocol.Result, wait time.Duration) (bool, *protocol.Poll, error) {
	lit, err := resultLiteral(r)
	if err != nil {
		return false, nil, err
	}
	var rp protocol.ResolvedPoll
	expr := fmt.Sprintf(`(typeof %[1]s.resolveAndPoll === "function" ? %[1]s.resolveAndPoll(%[2]d, JSON.parse(%[3]s), %[4]d) : ({accepted: %[1]s.resolve(%[2]d, JSON.parse(%[3]s)), poll: null}))`,
		ch, seq, lit, wait.Milliseconds())
	err = s.call(ctx, expr, &rp)
	return rp.Accepted, rp.Poll, err
}

// Trigger reports the trigger button's geometry and the frame's activation.
func (s *Suite) Trigger(ctx context.Context) (protocol.TriggerInfo, error) {
	var t protocol.TriggerInfo
	err := s.call(ctx, ch+".trigger()", &t)
	return t, err
}

// AwaitClick reports the trigger once it has been clicked more than
// clicks times, or after wait as it is then. A suite without awaitClick
// (an older hosted one) answers at once, as Trigger.
func (s *Suite) AwaitClick(ctx context.Context, clicks int, wait time.Duration) (protocol.TriggerInfo, error) {
	var t protocol.TriggerInfo
	err := s.call(ctx, fmt.Sprintf(`(typeof %[1]s.awaitClick === "function" ? %[1]s.awaitClick(%[2]d, %[3]d) : %[1]s.trigger())`, ch, clicks, wait.Milliseconds()), &t)
	return t, err
}
