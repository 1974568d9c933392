package broadcast

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
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

func TestUntilWakesAtNotifyAndLooksOnceMoreAtTheDeadline(t *testing.T) {
	var s Signal
	var mu sync.Mutex
	ready, looks := false, 0
	look := func() bool {
		mu.Lock()
		defer mu.Unlock()
		looks++
		return ready
	}
	set := func(v bool) {
		mu.Lock()
		ready = v
		mu.Unlock()
	}

	// Already true: no wait, one look.
	set(true)
	if ok, err := s.Until(context.Background(), time.Hour, look); !ok || err != nil || looks != 1 {
		t.Fatalf("true at once: got %v, %v after %d looks, want true, nil after 1", ok, err, looks)
	}

	// Made true and notified while waiting: Until returns long before its
	// hour is up (the test would time out otherwise).
	set(false)
	done := make(chan bool)
	go func() {
		ok, _ := s.Until(context.Background(), time.Hour, look)
		done <- ok
	}()
	for {
		mu.Lock()
		waiting := looks >= 2
		mu.Unlock()
		if waiting {
			break
		}
		runtime.Gosched()
	}
	set(true)
	s.Notify()
	// The wait's own deadline is an hour: a Notify that no longer wakes it
	// fails here, not at go test's timeout.
	if !testwait.Recv(t, done, 10*time.Second, "a Notify after the condition came true did not end the wait within 10 s") {
		t.Fatal("a Notify after the condition came true did not end the wait with true")
	}

	// Made true without a Notify (here: by the first look itself): the
	// last look at the deadline sees it.
	calls := 0
	lateTrue := func() bool {
		calls++
		return calls > 1
	}
	if ok, _ := s.Until(context.Background(), time.Millisecond, lateTrue); !ok || calls != 2 {
		t.Fatalf("a change made without a Notify: got %v after %d looks, want true after 2 (the deadline's)", ok, calls)
	}

	// Never true: false at the deadline; zero timeout looks once.
	set(false)
	if ok, err := s.Until(context.Background(), time.Millisecond, look); ok || err != nil {
		t.Fatalf("never true: got %v, %v, want false, nil", ok, err)
	}
	before := looks
	if ok, _ := s.Until(context.Background(), 0, look); ok || looks != before+1 {
		t.Fatalf("zero timeout: got %v after %d looks, want false after 1", ok, looks-before)
	}

	// An ended ctx is the only error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ok, err := s.Until(ctx, time.Hour, look); ok || err != context.Canceled {
		t.Fatalf("cancelled: got %v, %v, want false, context.Canceled", ok, err)
	}
}
