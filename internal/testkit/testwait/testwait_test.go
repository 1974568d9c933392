package testwait

import (
	"testing"
	"time"
)

// fatals records Fatal instead of ending the test.
type fatals struct {
	testing.TB
	msgs []any
}

func (f *fatals) Helper()           {}
func (f *fatals) Fatal(args ...any) { f.msgs = append(f.msgs, args...) }

func TestRecvReturnsTheValueThatComes(t *testing.T) {
	ch := make(chan int, 1)
	go func() { time.Sleep(10 * time.Millisecond); ch <- 7 }()
	f := &fatals{TB: t}
	if got := Recv(f, ch, 5*time.Second, "never"); got != 7 || len(f.msgs) != 0 {
		t.Fatalf("Recv = %d, fatals %q", got, f.msgs)
	}
}

func TestRecvFailsWithTheMessageWhenNothingComes(t *testing.T) {
	f := &fatals{TB: t}
	start := time.Now()
	got := Recv(f, make(chan string), 50*time.Millisecond, "the run never ended")
	if got != "" || len(f.msgs) != 1 || f.msgs[0] != "the run never ended" {
		t.Fatalf("Recv = %q, fatals %q", got, f.msgs)
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > 5*time.Second {
		t.Errorf("gave up after %s, want 50ms", took)
	}
}
