package expectations

import (
	"errors"
	"testing"
)

// FuzzParse: any document either parses or fails with *Error naming a line;
// never a panic. Crashers found by `go test -fuzz FuzzParse ./baseline`
// are kept in testdata/fuzz/FuzzParse as regression cases.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"reference:\n  - lifecycle/ping\n",
		"inspector:\n  - id: visibility/model-only-tool-rejected\n    reason: host bug\n    allow: [PASS, TIMEOUT]\n",
		"reference: [a/b, {id: c/d, allow: [FAIL]}]\n",
		"- a\n- b\n",
		"reference:\n  - id: 42\n",
		"reference:\n  - allow: [PASS]\n",
		"x: &a [*a]\n",
		"reference:\n  - id: a/b\n    allow: [NOPE]\n",
		"\t\x00:",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		exp, err := Parse("fuzz.yaml", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T, want *expectations.Error with a line: %v", err, err)
			}
			return
		}
		if exp == nil {
			t.Fatal("nil expectations without an error")
		}
	})
}
