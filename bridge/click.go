package bridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// How long ClickTrigger waits for the trigger button to report the
// pointer over it, and then the click.
const (
	hoverWait = 15 * time.Second
	clickWait = 10 * time.Second
)

// ClickTrigger delivers a real, trusted mouse click to the suite's trigger
// button. It locates the button without evaluating anything with a user
// gesture in the app frame, so the click itself is what activates the frame.
func ClickTrigger(ctx context.Context, page playwright.Page, s *Suite) error {
	before, err := s.Trigger(ctx)
	if err != nil {
		return err
	}
	el, err := s.Frame().FrameElement()
	if err != nil {
		return fmt.Errorf("app iframe element: %w", err)
	}
	box, err := el.BoundingBox()
	if err != nil || box == nil {
		return fmt.Errorf("app iframe has no box (hidden?): %v", err)
	}
	x := box.X + before.X + before.Width/2
	y := box.Y + before.Y + before.Height/2
	// Start away from the button, so "hovered" can only come from this move.
	if err := page.Mouse().Move(0, 0); err != nil {
		return err
	}
	// A fresh out-of-process frame may not be hit-testable yet and drop a
	// raw click: move the pointer until the button reports it, then click.
	// Both waits end as soon as the button reports; their bounds only run
	// out for a button that is covered, and a loaded machine or a
	// throttled frame is slow to report (docs/audit-timing.md).
	deadline := time.Now().Add(hoverWait)
	for i := 0; ; i++ {
		if err := page.Mouse().Move(x+float64(i%3), y); err != nil {
			return err
		}
		t, err := s.Trigger(ctx)
		if err != nil {
			return err
		}
		if t.Hovered {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the pointer never reached the trigger button (is it covered or off screen?)")
		}
	}
	if err := page.Mouse().Click(x, y); err != nil {
		return err
	}
	for deadline := time.Now().Add(clickWait); ; {
		t, err := s.Trigger(ctx)
		if err != nil {
			return err
		}
		if t.Clicks > before.Clicks {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the click did not reach the trigger button")
		}
	}
}
