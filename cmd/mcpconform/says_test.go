package main

import (
	"strings"
	"testing"
)

// says fails the test for each of wants that text does not contain; what
// names the text in the message.
func says(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
