package browserhost

import (
	"context"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/internal/broadcast"
)

// Dialogs answers a page's native dialogs (alert, confirm, prompt) the
// moment they appear and remembers them, so that a confirmDialog request
// can report one afterwards. A native dialog blocks the renderer, and with
// it a View in the same process, so waiting for the suite to ask before
// answering would deadlock. The zero value is ready to use.
type Dialogs struct {
	mu   sync.Mutex
	seen []Dialog
	// added wakes every Next waiting (two at once both see a new dialog).
	added broadcast.Signal
}

// Dialog is a native dialog as it was shown and answered.
type Dialog struct {
	Type, Message string
	Accepted      bool
	consumed      bool
}

// maxDialogs bounds what is remembered between resets.
const maxDialogs = 100

// Policy decides, for a dialog of type typ ("alert", "confirm", "prompt",
// "beforeunload") showing msg, whether to accept it (else it is dismissed)
// and whether to remember it for Next.
type Policy func(typ, msg string) (accept, record bool)

// Watch answers every dialog of page by policy from now on.
func (d *Dialogs) Watch(page playwright.Page, policy Policy) {
	page.OnDialog(func(pd playwright.Dialog) {
		typ, msg := pd.Type(), pd.Message()
		accept, record := policy(typ, msg)
		go func() {
			if accept {
				pd.Accept()
			} else {
				pd.Dismiss()
			}
		}()
		if !record {
			return
		}
		d.add(Dialog{Type: typ, Message: msg, Accepted: accept})
	})
}

// add remembers x (up to maxDialogs) and wakes the waiters.
func (d *Dialogs) add(x Dialog) {
	d.mu.Lock()
	if len(d.seen) < maxDialogs {
		d.seen = append(d.seen, x)
	}
	d.mu.Unlock()
	d.added.Notify()
}

// Next waits up to timeout for a remembered dialog that match accepts and
// no earlier Next returned, marks it reported and returns it; false when
// none came in time. Only a cancelled ctx is an error.
func (d *Dialogs) Next(ctx context.Context, timeout time.Duration, match func(Dialog) bool) (Dialog, bool, error) {
	var found Dialog
	ok, err := d.added.Until(ctx, timeout, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		for i := range d.seen {
			if x := &d.seen[i]; !x.consumed && match(*x) {
				x.consumed = true
				found = *x
				return true
			}
		}
		return false
	})
	return found, ok, err
}

// Forget drops every remembered dialog (between tests).
func (d *Dialogs) Forget() {
	d.mu.Lock()
	d.seen = nil
	d.mu.Unlock()
}
