package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"CONVERSATON", "CONVERSATION", 1}, {"same", "same", 0}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// A typo finds its word; a word far from every candidate finds none.
func TestNearest(t *testing.T) {
	cands := []string{"{server}", "{server2}", "{nonce}", "{arguments.delayMs}"}
	for word, want := range map[string]string{"{Server}": "{server}", "{arguments:delayMs}": "{arguments.delayMs}", "{nonse}": "{nonce}"} {
		if got, ok := Nearest(word, cands); !ok || got != want {
			t.Errorf("Nearest(%q) = %q %v, want %q", word, got, ok, want)
		}
	}
	if got, ok := Nearest("{token}", cands); ok {
		t.Errorf("Nearest({token}) = %q, want none", got)
	}
}
