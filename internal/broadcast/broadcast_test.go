package broadcast

import (
	"sync"
	"testing"
)

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestNotifyWakesEveryWaiterOnce(t *testing.T) {
	var s Signal
	a, b := s.C(), s.C()
	if a != b {
		t.Fatal("two waiters before a Notify got different channels")
	}
	if closed(a) {
		t.Fatal("the channel is closed before any Notify")
	}
	s.Notify()
	if !closed(a) {
		t.Fatal("Notify did not close the channel its waiters hold")
	}
	c := s.C()
	if closed(c) {
		t.Fatal("a channel taken after the Notify is already closed: the next wait would not wait")
	}
	s.Notify()
	s.Notify() // nobody took a channel since: nothing to close twice
	if !closed(c) {
		t.Fatal("the second Notify did not close the channel taken after the first")
	}
}

func TestNotifyWithoutWaitersDoesNotPanic(t *testing.T) {
	var s Signal
	s.Notify()
	if closed(s.C()) {
		t.Fatal("a Notify with no waiter left a closed channel for the next one")
	}
}

func TestConcurrentNotifyAndWait(t *testing.T) {
	var s Signal
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); s.Notify() }()
		go func() { defer wg.Done(); _ = s.C() }()
	}
	wg.Wait()
	c := s.C()
	s.Notify()
	<-c
}
