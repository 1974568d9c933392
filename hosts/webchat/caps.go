package webchat

import (
	"context"
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// The capabilities every chat product's page offers the driver. Not
// readModelToolList: the products' pages show no tool list, so
// visibility/app-tool-hidden falls back to asking the model.

// ClickTrigger clicks the suite's trigger for real and, when the suite asks,
// commits the message the product drafted. Chat products scroll the
// conversation as turns arrive, so the app is brought into view and its
// position allowed to settle before the click, and a click that did not
// reach the button (the layout moved under it) is tried again.
func (c *Chat) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if req.CommitDraftedMessage {
		c.composerBefore, _ = c.ComposerText()
	}
	var r protocol.Result
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		c.settleApp(ctx)
		c.input.Lock()
		r, err = c.Click(ctx)
		c.input.Unlock()
		if err != nil || r.OK {
			break
		}
		c.logf("%s: the trigger click missed (%s); trying again", c.Profile.Product, r.Error)
	}
	if err != nil || !r.OK || !req.CommitDraftedMessage {
		return r, err
	}
	c.input.Lock()
	err = c.hooks.CommitMessage(ctx, c)
	c.input.Unlock()
	if err != nil {
		return protocol.Result{OK: false, Error: "committing the drafted message: " + err.Error()}, nil
	}
	return r, nil
}

// settleApp scrolls the page so that the suite's trigger button is in view
// (chat products keep the conversation scrolled to its newest turn, which
// can push a tall app's trigger out of sight or under the composer), then
// waits up to 2 s for the app to hold still for 100 ms. Only the host page
// is scrolled: nothing runs in the app's frames.
func (c *Chat) settleApp(ctx context.Context) {
	if c.Suite == nil {
		return
	}
	outerEl, err := c.SuiteFrameElement()
	if err != nil {
		return
	}
	viewEl, err := c.Suite.Frame().FrameElement()
	if err != nil {
		return
	}
	ti, err := c.Suite.Trigger(ctx)
	ob, err1 := outerEl.BoundingBox()
	vb, err2 := viewEl.BoundingBox()
	if err == nil && err1 == nil && err2 == nil && ob != nil && vb != nil {
		dy := vb.Y - ob.Y + ti.Y + ti.Height/2
		if _, err := outerEl.Evaluate(scrollToPoint, dy); err != nil {
			c.logf("%s: scrolling the app into view: %v", c.Profile.Product, browserhost.FirstLine(err))
		}
	}
	var last *playwright.Rect
	c.waitFor(ctx, 2*time.Second, func() (bool, error) {
		box, err := outerEl.BoundingBox()
		if err != nil || box == nil {
			return false, nil
		}
		same := last != nil && *last == *box
		last = box
		return same, nil
	}, func() error { return nil })
}

// scrollToPoint scrolls every scrolling ancestor of the iframe element, and
// the window, until the point dy pixels below the iframe's top is well
// inside each.
const scrollToPoint = `(frame, dy) => {
	const y = () => frame.getBoundingClientRect().top + dy;
	for (let el = frame.parentElement; el; el = el.parentElement) {
		if (el.scrollHeight <= el.clientHeight) continue;
		const r = el.getBoundingClientRect();
		const p = y();
		if (p < r.top + 40 || p > r.bottom - 40) el.scrollTop += p - (r.top + r.height / 3);
	}
	const p = y();
	if (p < 40 || p > innerHeight - 40) window.scrollBy(0, p - innerHeight / 3);
	return y();
}`

// ConfirmDialog accepts the product's confirmation dialog of that kind; a dialog
// the profile says the product does not show answers unsupported.
func (c *Chat) ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	field := map[protocol.Dialog]string{protocol.DialogOpenLink: "OpenLinkConfirm", protocol.DialogDownload: "DownloadConfirm", protocol.DialogSampling: "SamplingConfirm"}[req.Dialog]
	if field == "" {
		r := protocol.Unsupported(req.Kind)
		r.Error += fmt.Sprintf(" (the %s profile knows no %s dialog)", c.Profile.Product, req.Dialog)
		return r, nil
	}
	if c.Profile.Sel(field) == "" {
		r := protocol.Unsupported(req.Kind)
		r.Error += fmt.Sprintf(" (the %s profile has no %s dialog; set %s if the product shows one)", c.Profile.Product, req.Dialog, c.Profile.Var(field))
		return r, nil
	}
	c.input.Lock()
	err := c.ClickWhenVisible(c.Profile.Sel(field), 5*time.Second)
	c.input.Unlock()
	if err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no %s dialog appeared within 5s (%s): %v", req.Dialog, c.Profile.Describe(field), browserhost.FirstLine(err))}, nil
	}
	return protocol.Result{OK: true}, nil
}

// ConversationContains answers conversationContains through the product's hook.
func (c *Chat) ConversationContains(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	ok, err := c.hooks.VerifyConversation(ctx, c, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: ok, Value: browserhost.MustJSON(ok)}, nil
}

// MessageRole answers messageRole from the product's turns: the turn that
// shows the marker is the user's when it matches UserTurn, else the
// assistant's (Turn matches both); a draft in the composer is in no turn.
// Unsupported where the profile's UserTurn is none.
func (c *Chat) MessageRole(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	user := c.Profile.Sel("UserTurn")
	if user == "" {
		r := protocol.Unsupported(req.Kind)
		r.Error += " (" + c.Profile.Describe("UserTurn") + ")"
		return r, nil
	}
	turn := c.Profile.Sel("Turn")
	return c.ReadMessageRole(ctx, turn, user, turn, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// ToggleTheme answers toggleTheme through the product's hook.
func (c *Chat) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if err := c.hooks.ToggleTheme(ctx, c, req.To); err != nil {
		return protocol.Result{OK: false, Error: err.Error()}, nil
	}
	return protocol.Result{OK: true}, nil
}

// ResetIsolation closes stray tabs and dialogs, dismisses modals and restores
// the light theme between manual tests. The app is not reopened: the suite
// that asks runs inside it.
func (c *Chat) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	c.input.Lock()
	r, err := c.Reset(ctx)
	if err == nil && r.OK {
		if derr := c.hooks.DismissModal(ctx, c, 0); derr != nil {
			r = protocol.Result{OK: false, Error: derr.Error()}
		}
	}
	c.input.Unlock()
	if err != nil || !r.OK {
		return r, err
	}
	return c.ToggleTheme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}
