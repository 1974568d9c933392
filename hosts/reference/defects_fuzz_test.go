package reference

import (
	"strings"
	"testing"
)

// FuzzParseDefects: a list either parses to known defects or names the
// unknown one in its error; never a panic.
func FuzzParseDefects(f *testing.F) {
	for _, s := range []string{"", "no-visibility-guard", "nope", "no-visibility-guard,ping-unanswered", " , ,", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseDefects(strings.Split(s, ","))
		if err != nil {
			if !strings.Contains(err.Error(), "unknown host defect") {
				t.Fatalf("error does not say what is wrong: %v", err)
			}
			return
		}
		for name := range set {
			found := false
			for _, d := range Defects {
				found = found || d.Name == name
			}
			if !found {
				t.Fatalf("accepted unknown defect %q", name)
			}
		}
	})
}
