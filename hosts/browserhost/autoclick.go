package browserhost

import (
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// AutoClick plays the user who answers the host's recurring prompts (approve
// this tool call, send this message): whenever the first element loc matches
// is visible it is clicked, checked every interval, until the returned stop is
// called; stop waits for the watcher to end. lock, when not nil, is held
// around each click so that it never interleaves with the driver's own
// input. clicked, when not nil, is called after each click that succeeded.
func AutoClick(loc playwright.Locator, every time.Duration, lock sync.Locker, clicked func()) (stop func()) {
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
			if v, err := btn.IsVisible(); err != nil || !v {
				continue
			}
			if lock != nil {
				lock.Lock()
			}
			err := btn.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(2000)})
			if lock != nil {
				lock.Unlock()
			}
			if err == nil && clicked != nil {
				clicked()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}
