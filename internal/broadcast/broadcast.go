// Package broadcast wakes every goroutine waiting for a condition that a
// callback (a Playwright event, a recorded message) may have made true: the
// waiter reads the condition, takes the channel, and waits on it instead
// of re-reading the condition at a fixed interval.
package broadcast

import (
	"context"
	"sync"
	"time"
)

// Signal is a condition's "something changed". The zero value is ready to
// use.
type Signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// C is closed at the next Notify. Take it before reading the condition
// (under the lock that guards it, or before the read), so that a change
// between the read and the wait is not missed.
func (s *Signal) C() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Notify wakes every waiter of the channels C has handed out so far.
func (s *Signal) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// Until calls look at once and after each Notify until it returns true,
// timeout passes (after one last look: a change made without a Notify is
// still seen) or ctx ends; a timeout of zero or less looks once. look runs
// on the waiting goroutine, so it may take what it found (a dialog, a
// download) as it reports it. Only an ended ctx is an error.
func (s *Signal) Until(ctx context.Context, timeout time.Duration, look func() bool) (bool, error) {
	deadline := time.NewTimer(max(timeout, 0))
	defer deadline.Stop()
	for {
		next := s.C()
		if look() {
			return true, nil
		}
		if timeout <= 0 {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			return look(), nil
		case <-next:
		}
	}
}
