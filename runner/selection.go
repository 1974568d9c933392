package runner

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/internal/specreg"
	"github.com/mcpconform/mcpconform/protocol"
)

// Selection decides which tests run.
type Selection struct {
	Globs    []string           // id globs (path.Match); empty means all
	Clauses  []protocol.Clause  // empty means all
	Editions []protocol.Edition // empty means all
	Shard    Shard              // zero means no sharding
	// Judge is the edition whose text the checks are judged against: each
	// check carries the keyword of its requirements' sentences in that
	// edition and cites them (specreg.Judge); "" is the stable edition.
	// The Clauses filter applies to the judged clause, the Editions filter
	// to the edition a check comes from.
	Judge protocol.Edition
}

// JudgeEdition is the edition the checks are judged against.
func (s Selection) JudgeEdition() protocol.Edition {
	if s.Judge == "" {
		return protocol.EditionStable
	}
	return s.Judge
}

// Judged is m as the judged edition's text judges it: the clause and the
// edition of the sentence judged (specreg.Judge), and the judgement, which
// recites m's verdict messages (specreg.Recite).
func (s Selection) Judged(m protocol.TestMeta) (protocol.TestMeta, specreg.Judgement) {
	reg, err := specreg.Load()
	if err != nil {
		return m, specreg.Judgement{Clause: m.Clause, Edition: m.Edition}
	}
	j := reg.Judge(m, s.JudgeEdition())
	if j.Edition != m.Edition && j.SpecRef != "" {
		// The check's own references are lines of its own edition.
		m.SpecRef = j.SpecRef
	}
	m.Clause, m.Edition = j.Clause, j.Edition
	return m, j
}

// ParseJudgeEdition reads --judge-edition: a spec edition, "" for the
// default (the stable edition).
func ParseJudgeEdition(e string) (protocol.Edition, error) {
	switch ed := protocol.Edition(strings.TrimSpace(e)); ed {
	case "", protocol.EditionStable, protocol.EditionDraft:
		return ed, nil
	}
	return "", fmt.Errorf("--judge-edition %q: use %s or %s", e, protocol.EditionStable, protocol.EditionDraft)
}

// Shard is the I-th of N deterministic parts of a selection (1-based).
type Shard struct{ I, N int }

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || fmt.Sprintf("%d/%d", sh.I, sh.N) != s || sh.N < 1 || sh.I < 1 || sh.I > sh.N {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return sh, nil
}

// Match reports whether the test passes the id, clause and edition filters
// (sharding applies to the whole list: see Apply).
func (s Selection) Match(m protocol.TestMeta) bool {
	if len(s.Clauses) > 0 && !slices.Contains(s.Clauses, m.Clause) {
		return false
	}
	if len(s.Editions) > 0 && !slices.Contains(s.Editions, m.Edition) {
		return false
	}
	if len(s.Globs) == 0 {
		return true
	}
	for _, g := range s.Globs {
		if ok, _ := path.Match(g, m.ID); ok || g == m.ID {
			return true
		}
	}
	return false
}

// Apply judges the catalogue against the judged edition (Judged), filters
// it and keeps this shard's part. Shards split the
// filtered checks, sorted by id, round-robin: every check is in exactly one
// shard, the shards differ in size by at most one, and the split depends
// only on the catalogue and the filters.
func (s Selection) Apply(tests []protocol.TestMeta) []protocol.TestMeta {
	var out []protocol.TestMeta
	for _, m := range tests {
		judged, _ := s.Judged(m)
		probe := judged
		probe.Edition = m.Edition
		if s.Match(probe) {
			out = append(out, judged)
		}
	}
	if s.Shard.N <= 1 {
		return out
	}
	ids := make([]string, len(out))
	for i, m := range out {
		ids[i] = m.ID
	}
	sort.Strings(ids)
	mine := map[string]bool{}
	for k, id := range ids {
		if k%s.Shard.N == s.Shard.I-1 {
			mine[id] = true
		}
	}
	var part []protocol.TestMeta
	for _, m := range out {
		if mine[m.ID] {
			part = append(part, m)
		}
	}
	return part
}

// ParseSelection builds a selection from the command line's words: id
// globs (each must be valid and, when known lists the catalogue's ids,
// match one), clauses (MUST includes MUST NOT, SHOULD includes SHOULD
// NOT, MAY, INFO), editions and a shard "I/N" ("" for none). The error
// names the value that is wrong.
func ParseSelection(globs, clauses, editions []string, shard string, known []string) (Selection, error) {
	sel := Selection{Globs: globs}
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return sel, fmt.Errorf("--run %q is not a valid glob: %v", g, err)
		}
		matched := len(known) == 0
		for _, id := range known {
			if ok, _ := path.Match(g, id); ok || g == id {
				matched = true
				break
			}
		}
		if !matched {
			return sel, fmt.Errorf("--run %q matches no check: see `mcpconform list` for the ids", g)
		}
	}
	for _, c := range clauses {
		switch strings.ToUpper(strings.TrimSpace(c)) {
		case "MUST":
			sel.Clauses = append(sel.Clauses, protocol.ClauseMust, protocol.ClauseMustNot)
		case "SHOULD":
			sel.Clauses = append(sel.Clauses, protocol.ClauseShould, protocol.ClauseShouldNot)
		case "MAY":
			sel.Clauses = append(sel.Clauses, protocol.ClauseMay)
		case "INFO":
			sel.Clauses = append(sel.Clauses, protocol.ClauseInfo)
		default:
			return sel, fmt.Errorf("--clause %q: use MUST, SHOULD, MAY or INFO (MUST includes MUST NOT, SHOULD includes SHOULD NOT)", c)
		}
	}
	for _, e := range editions {
		switch ed := protocol.Edition(strings.TrimSpace(e)); ed {
		case protocol.EditionStable, protocol.EditionDraft:
			sel.Editions = append(sel.Editions, ed)
		default:
			return sel, fmt.Errorf("--edition %q: use %s or %s", e, protocol.EditionStable, protocol.EditionDraft)
		}
	}
	if shard != "" {
		sh, err := ParseShard(shard)
		if err != nil {
			return sel, err
		}
		sel.Shard = sh
	}
	return sel, nil
}
