package runner

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// FuzzParseShard: any string either parses to a valid shard or errors; it
// never panics, and what parses prints back the same.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", "0/0", "5/4", "-1/2", "1/", "/", "1/2/3", "９/9", "1/99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.I < 1 || sh.I > sh.N {
			t.Fatalf("%q parsed to invalid %+v", s, sh)
		}
	})
}

// FuzzSelection: any glob and shard either selects a subset of the
// catalogue without duplicates or selects nothing; never a panic.
func FuzzSelection(f *testing.F) {
	f.Add("visibility/*", 1, 2)
	f.Add("[", 1, 1)
	f.Add("**/[a-", 3, 2)
	f.Add("", 0, 0)
	cat := []protocol.TestMeta{{ID: "a/one", Clause: "MUST"}, {ID: "b/two", Clause: "SHOULD"}, {ID: "c/three", Clause: "MAY"}}
	f.Fuzz(func(t *testing.T, glob string, i, n int) {
		s := Selection{Shard: Shard{I: i, N: n}}
		if glob != "" {
			s.Globs = strings.Split(glob, ",")
		}
		if n < 0 || n > 1000 || i < 0 {
			s.Shard = Shard{}
		}
		got := s.Apply(cat)
		seen := map[string]bool{}
		for _, m := range got {
			if seen[m.ID] {
				t.Fatalf("%q: %s selected twice", glob, m.ID)
			}
			seen[m.ID] = true
		}
		if len(got) > len(cat) {
			t.Fatalf("selected more than the catalogue")
		}
	})
}
