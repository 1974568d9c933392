package browserhost

import (
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// A requested name pairs with the next download by order: a report that
// lags the download's start (a loaded machine) still pairs, and a name
// one download took is not given to another.
func TestNameRequestedForPairsByOrder(t *testing.T) {
	downloadNames.Lock()
	saved := downloadNames.latest
	downloadNames.latest = map[playwright.Page]requestedName{}
	downloadNames.Unlock()
	t.Cleanup(func() {
		downloadNames.Lock()
		downloadNames.latest = saved
		downloadNames.Unlock()
	})
	start := time.Now()
	downloadNames.Lock()
	downloadNames.latest[nil] = requestedName{name: "../../x.txt", at: start.Add(5 * time.Second)}
	downloadNames.Unlock()
	if got := nameRequestedFor(nil, start); got != "../../x.txt" {
		t.Errorf("a name reported 5 s after the download started: got %q, want it paired", got)
	}
	if got := nameRequestedFor(nil, start.Add(time.Second)); got != "" {
		t.Errorf("a second download without a name of its own got %q, want none (the name was taken)", got)
	}
	downloadNames.Lock()
	downloadNames.latest[nil] = requestedName{name: "stale.txt", at: start.Add(-2 * time.Minute)}
	downloadNames.Unlock()
	if got := nameRequestedFor(nil, start); got != "" {
		t.Errorf("a name asked for two minutes before: got %q, want none", got)
	}
}
