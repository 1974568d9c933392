package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/specreg"
	"github.com/mcpconform/mcpconform/protocol"
)

func TestParseSelection(t *testing.T) {
	known := []string{"visibility/a", "lifecycle/b"}
	sel, err := ParseSelection([]string{"visibility/*"}, []string{"must", " SHOULD"}, []string{"draft"}, "2/3", known)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sel.Clauses) != "[MUST MUST NOT SHOULD SHOULD NOT]" || fmt.Sprint(sel.Editions) != "[draft]" || sel.Shard != (Shard{2, 3}) || sel.Globs[0] != "visibility/*" {
		t.Errorf("selection %+v", sel)
	}
	for _, c := range []struct {
		globs, clauses, editions []string
		shard, want              string
	}{
		{globs: []string{"[x"}, want: `--run "[x" is not a valid glob`},
		{globs: []string{"nowhere/*"}, want: `--run "nowhere/*" matches no check`},
		{clauses: []string{"MIGHT"}, want: `--clause "MIGHT": use MUST, SHOULD, MAY or INFO`},
		{editions: []string{"2025"}, want: `--edition "2025"`},
		{shard: "3/2", want: `--shard "3/2"`},
	} {
		if _, err := ParseSelection(c.globs, c.clauses, c.editions, c.shard, known); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
	// Without a catalogue any valid glob is accepted.
	if _, err := ParseSelection([]string{"nowhere/*"}, nil, nil, "", nil); err != nil {
		t.Error(err)
	}
}

func TestShardsSplitEveryCheckExactlyOnce(t *testing.T) {
	var tests []protocol.TestMeta
	for i := 0; i < 43; i++ {
		tests = append(tests, protocol.TestMeta{ID: fmt.Sprintf("area%d/check-%02d", i%5, i), Clause: protocol.ClauseMust})
	}
	for _, n := range []int{1, 2, 3, 4, 7, 43, 50} {
		seen := map[string]int{}
		sizes := []int{}
		for i := 1; i <= n; i++ {
			part := Selection{Shard: Shard{i, n}}.Apply(tests)
			sizes = append(sizes, len(part))
			for _, m := range part {
				seen[m.ID]++
			}
			again := Selection{Shard: Shard{i, n}}.Apply(tests)
			if fmt.Sprint(again) != fmt.Sprint(part) {
				t.Fatalf("shard %d/%d is not deterministic", i, n)
			}
		}
		if len(seen) != len(tests) {
			t.Errorf("n=%d: %d of %d checks in some shard", n, len(seen), len(tests))
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("n=%d: %s in %d shards", n, id, k)
			}
		}
		lo, hi := sizes[0], sizes[0]
		for _, x := range sizes {
			lo, hi = min(lo, x), max(hi, x)
		}
		if hi-lo > 1 {
			t.Errorf("n=%d: shard sizes %v differ by more than one", n, sizes)
		}
	}
}

func TestSelectionFilters(t *testing.T) {
	tests := []protocol.TestMeta{
		{ID: "a/must", Clause: protocol.ClauseMust, Edition: protocol.EditionStable},
		{ID: "a/mustnot", Clause: protocol.ClauseMustNot, Edition: protocol.EditionStable},
		{ID: "b/should", Clause: protocol.ClauseShould, Edition: protocol.EditionDraft},
	}
	ids := func(s Selection) string {
		var out []string
		for _, m := range s.Apply(tests) {
			out = append(out, m.ID)
		}
		return strings.Join(out, ",")
	}
	for want, s := range map[string]Selection{
		"a/must,a/mustnot,b/should": {},
		"a/must,a/mustnot":          {Globs: []string{"a/*"}},
		"b/should":                  {Editions: []protocol.Edition{protocol.EditionDraft}},
		"a/mustnot":                 {Clauses: []protocol.Clause{protocol.ClauseMustNot}},
		"":                          {Globs: []string{"a/*"}, Editions: []protocol.Edition{protocol.EditionDraft}},
	} {
		if got := ids(s); got != want {
			t.Errorf("%+v: %q, want %q", s, got, want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, ok := range []string{"1/1", "2/4", "4/4"} {
		if _, err := ParseShard(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "0/4", "5/4", "1/0", "a/b", "1/4x", "-1/4", "1 /4"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// --judge-edition: each check carries the keyword of the judged edition's
// sentence and its message cites that sentence; --clause filters on the
// judged clause, --edition on the edition a check comes from.
func TestJudgeEdition(t *testing.T) {
	exact := protocol.TestMeta{ID: "csp/exact-default", Clause: protocol.ClauseMust, Edition: protocol.EditionStable, Requirements: []string{"host-restrictive-default"}}
	plain := protocol.TestMeta{ID: "display/plain", Clause: protocol.ClauseMust, Edition: protocol.EditionStable, Requirements: []string{"host-return-resulting-mode-updated"}}
	cat := []protocol.TestMeta{exact, plain}
	ids := func(ms []protocol.TestMeta) string {
		var out []string
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%s:%s:%s", m.ID, m.Clause, m.Edition))
		}
		return strings.Join(out, ",")
	}
	if got := ids(Selection{}.Apply(cat)); got != "csp/exact-default:MUST:2026-01-26,display/plain:MUST:2026-01-26" {
		t.Errorf("default (stable): %s", got)
	}
	draft := Selection{Judge: protocol.EditionDraft}
	judged := draft.Apply(cat)
	if got := ids(judged); got != "csp/exact-default:SHOULD:draft,display/plain:MUST:draft" {
		t.Errorf("judged against the draft: %s", got)
	}
	// Its spec reference names the draft's lines, not the stable ones.
	reg, _ := specreg.Load()
	s, _ := reg.Find("host-restrictive-default", protocol.EditionDraft)
	if want := fmt.Sprintf("§Host Behavior L%d", s.Line); judged[0].SpecRef != want {
		t.Errorf("judged against the draft, specRef %q, want %q", judged[0].SpecRef, want)
	}
	mustOnly := Selection{Judge: protocol.EditionDraft, Clauses: []protocol.Clause{protocol.ClauseMust, protocol.ClauseMustNot}, Editions: []protocol.Edition{protocol.EditionStable}}
	if got := ids(mustOnly.Apply(cat)); got != "display/plain:MUST:draft" {
		t.Errorf("draft, --clause MUST --edition 2026-01-26: %s (want the check that stays MUST, selected by the edition it comes from)", got)
	}
	for _, bad := range []string{"stable", "2025-06-18"} {
		if _, err := ParseJudgeEdition(bad); err == nil || !strings.Contains(err.Error(), "--judge-edition") {
			t.Errorf("ParseJudgeEdition(%q) = %v, want a usage error", bad, err)
		}
	}
}
