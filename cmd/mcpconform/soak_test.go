package main

import (
	"testing"
	"time"
)

// A soak must not be cut short by a limit meant for one pass:
// --timeout bounds each pass, so --repeat N gets N times as long.
func TestTimeoutBoundsEachPassOfASoak(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		repeat  int
		want    time.Duration
	}{
		{10 * time.Minute, 1, 10 * time.Minute},
		{10 * time.Minute, 50, 500 * time.Minute},
		{30 * time.Second, 0, 30 * time.Second}, // unset repeat is one pass
	} {
		if got := runLimit(Config{Timeout: c.timeout, Repeat: c.repeat}); got != c.want {
			t.Errorf("--timeout %s --repeat %d: limit %s, want %s", c.timeout, c.repeat, got, c.want)
		}
	}
}
