package browserhost

import (
	"context"
	"testing"
	"time"
)

// add records a dialog as Watch does.
func (d *Dialogs) add(x Dialog) {
	d.mu.Lock()
	d.seen = append(d.seen, x)
	c := d.signal()
	d.mu.Unlock()
	select {
	case c <- struct{}{}:
	default:
	}
}

func TestDialogsNext(t *testing.T) {
	var d Dialogs
	ctx := context.Background()
	accepted := func(x Dialog) bool { return x.Accepted }
	d.add(Dialog{Type: "confirm", Message: "refused"})
	d.add(Dialog{Type: "confirm", Message: "one", Accepted: true})
	if x, ok, err := d.Next(ctx, time.Second, accepted); err != nil || !ok || x.Message != "one" {
		t.Fatalf("first: %+v %v %v", x, ok, err)
	}
	// Each dialog is reported once; none left that matches: a timeout.
	t0 := time.Now()
	if x, ok, err := d.Next(ctx, 100*time.Millisecond, accepted); err != nil || ok {
		t.Fatalf("reported twice: %+v %v %v", x, ok, err)
	}
	if e := time.Since(t0); e < 90*time.Millisecond {
		t.Errorf("gave up after %s, not the timeout", e)
	}
	// A dialog that appears while Next waits wakes it.
	go func() {
		time.Sleep(50 * time.Millisecond)
		d.add(Dialog{Type: "confirm", Message: "late", Accepted: true})
	}()
	if x, ok, err := d.Next(ctx, 5*time.Second, accepted); err != nil || !ok || x.Message != "late" {
		t.Fatalf("late: %+v %v %v", x, ok, err)
	}
	// The non-matching one is still there for another matcher; Forget drops it.
	if x, ok, _ := d.Next(ctx, 0, func(Dialog) bool { return true }); !ok || x.Message != "refused" {
		t.Errorf("any: %+v %v", x, ok)
	}
	d.add(Dialog{Type: "confirm", Message: "old", Accepted: true})
	d.Forget()
	if _, ok, _ := d.Next(ctx, 0, accepted); ok {
		t.Error("Forget kept a dialog")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := d.Next(cctx, time.Second, accepted); err == nil {
		t.Error("a cancelled context is not an error")
	}
}
