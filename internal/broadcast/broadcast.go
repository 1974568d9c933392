// Package broadcast wakes every goroutine waiting for a condition that a
// callback (a Playwright event, a recorded message) may have made true: the
// waiter reads the condition, takes the channel, and waits on it instead
// of re-reading the condition at a fixed interval.
package broadcast

import "sync"

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
