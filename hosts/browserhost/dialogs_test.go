package browserhost

import (
	"context"
	"testing"
	"time"
)

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

// Two checks' waits at once (a confirmDialog and a prompt observer) each
// see the dialog they wait for: a wake-up taken by the other waiter left
// one of them waiting out its timeout.
func TestDialogsNextWakesEveryWaiter(t *testing.T) {
	var d Dialogs
	ctx := context.Background()
	type got struct {
		x  Dialog
		ok bool
	}
	wait := func(typ string) chan got {
		c := make(chan got, 1)
		go func() {
			x, ok, _ := d.Next(ctx, time.Minute, func(x Dialog) bool { return x.Type == typ })
			c <- got{x, ok}
		}()
		return c
	}
	alert, confirm := wait("alert"), wait("confirm")
	d.add(Dialog{Type: "confirm", Message: "c"})
	d.add(Dialog{Type: "alert", Message: "a"})
	for typ, c := range map[string]chan got{"alert": alert, "confirm": confirm} {
		if g := <-c; !g.ok || g.x.Type != typ {
			t.Errorf("the %s waiter got %+v, %v", typ, g.x, g.ok)
		}
	}
}
