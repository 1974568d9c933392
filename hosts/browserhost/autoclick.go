package browserhost

import (
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// AutoClick plays the user who answers the host's recurring prompts (approve
// this tool call, send this message): whenever the first element loc matches
// is visible it is clicked, and again while one is, checked every interval,
// until the returned stop is called; stop waits for the watcher to end (a
// look's clicks included). lock, when not nil, is held around each click so
// that it never interleaves with the driver's own input. clicked, when not
// nil, is called after each click that succeeded.
//
// Two Playwright pointer actions at once on one page swallow each other's
// clicks, each reported done: the hit-target check of one blocks the
// other's mouse events (150 clicks each on two buttons from two goroutines:
// 21 and 24 never reached their button). A driver whose clicks may run
// while prompts are answered either shares lock with them, or answers with
// AutoDispatch where the page takes a dispatched click.
func AutoClick(loc playwright.Locator, every time.Duration, lock sync.Locker, clicked func()) (stop func()) {
	return autoPress(loc, every, lock, clicked, func(btn playwright.Locator) error {
		return btn.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(2000)})
	})
}

// AutoDispatch is AutoClick for a page whose prompts answer a click event
// (the reference host's): the click is dispatched on the element, not made
// with the mouse, so it never takes or loses one of the driver's own
// (under the tool-call-approval variation an approval clicked while the
// driver pressed a View's Stop swallowed the Stop, and the check ended in
// "the tool call kept running after Stop").
func AutoDispatch(loc playwright.Locator, every time.Duration, clicked func()) (stop func()) {
	return autoPress(loc, every, nil, clicked, func(btn playwright.Locator) error {
		return btn.DispatchEvent("click", nil, playwright.LocatorDispatchEventOptions{Timeout: playwright.Float(2000)})
	})
}

// maxPressesPerLook bounds the prompts answered at one look.
const maxPressesPerLook = 32

func autoPress(loc playwright.Locator, every time.Duration, lock sync.Locker, clicked func(), press func(playwright.Locator) error) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	btn := loc.First()
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-time.After(every):
			}
			// Every prompt shown, one after another, not one a tick:
			// a host that asks about each tool call piles its questions
			// up, and one a tick fell behind the View's calls (the
			// tool-call-approval variation under load, CI54: a probe
			// View's report waited past the host's 15 s for its teardown
			// answer). The first match each time: answering one may move
			// the others. Pressed again only once the last one pressed has
			// gone (one fewer match): a prompt that fades out is not
			// pressed twice.
			before := -1
			for n := 0; n < maxPressesPerLook; n++ {
				count, err := loc.Count()
				if err != nil || (before >= 0 && count >= before) {
					break
				}
				before = count
				if v, err := btn.IsVisible(); err != nil || !v {
					break
				}
				if lock != nil {
					lock.Lock()
				}
				err = press(btn)
				if lock != nil {
					lock.Unlock()
				}
				if err != nil {
					break
				}
				if clicked != nil {
					clicked()
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}
