package browserhost

import (
	"context"
	"strings"
	"testing"
	"time"
)

// record adds a navigation or a console line as Open's handlers do.
func (b *Base) record(nav, console string) {
	b.mu.Lock()
	if nav != "" {
		b.navigations = append(b.navigations, nav)
	}
	if console != "" {
		b.console = append(b.console, console)
	}
	b.mu.Unlock()
	b.recorded.Notify()
}

// A link opened while LinkOpened waits ends the wait with it; one that
// never opens ends it at the timeout, naming what did open.
func TestLinkOpenedWakesOnTheNavigation(t *testing.T) {
	var b Base
	b.record("https://other.example/", "")
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err := b.LinkOpened(context.Background(), "https://want.example/", time.Minute)
		if err != nil || !r.OK || !strings.Contains(string(r.Value), "https://want.example/page") {
			t.Errorf("LinkOpened = %+v, %v; want the link opened while it waited", r, err)
		}
	}()
	b.record("https://unrelated.example/", "")
	b.record("https://want.example/page", "")
	<-done

	r, err := b.LinkOpened(context.Background(), "https://never.example/", time.Millisecond)
	if err != nil || r.OK || !strings.Contains(r.Error, "https://other.example/") {
		t.Errorf("LinkOpened of a link never opened = %+v, %v; want not OK naming what opened", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.LinkOpened(ctx, "https://never.example/", time.Minute); err == nil {
		t.Error("a cancelled context is not an error")
	}
}

func TestConsoleMatchingWakesOnTheLine(t *testing.T) {
	var b Base
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err := b.ConsoleMatching(context.Background(), `^error: CSP`, time.Minute)
		if err != nil || !r.OK || !strings.Contains(string(r.Value), "error: CSP blocked") {
			t.Errorf("ConsoleMatching = %+v, %v; want the line logged while it waited", r, err)
		}
	}()
	b.record("", "log: unrelated")
	b.record("", "error: CSP blocked")
	<-done
	if r, _ := b.ConsoleMatching(context.Background(), `^warning`, time.Millisecond); r.OK {
		t.Errorf("ConsoleMatching with no matching line = %+v, want not OK", r)
	}
	if r, _ := b.ConsoleMatching(context.Background(), `(`, time.Minute); r.OK || !strings.Contains(r.Error, "bad pattern") {
		t.Errorf("a bad pattern = %+v", r)
	}
}
