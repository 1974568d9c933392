// Package testwait holds the tests' wait for a value from a goroutine: it
// comes within a bound, or the test fails saying what never happened.
package testwait

import (
	"testing"
	"time"
)

// Recv returns the next value from ch, or fails the test with msg (what
// never happened) once d has passed without one.
func Recv[T any](t testing.TB, ch <-chan T, d time.Duration, msg string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatal(msg)
	}
	var zero T
	return zero
}
