package specreg

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Judgement is how a check is judged against one edition's text: the
// clause its verdict carries, the edition of the sentence it judges, and
// that sentence when it is a register sentence of that edition.
type Judgement struct {
	Clause  protocol.Clause
	Edition protocol.Edition
	// Sentence is the sentence judged: nil when the check keeps its own
	// clause and quote (it names no requirement, is INFO, or none of its
	// requirements has a sentence in the edition).
	Sentence *Sentence
	// changed is set when the clause or the edition differ from the
	// check's own; texts are the sentences of its requirements in the
	// edition judged (with its external rules): a citation made of them
	// stays as the suite wrote it.
	changed bool
	texts   []string
	// SpecRef names the lines of the check's requirements in the edition
	// judged ("§Host Behavior L296; §Sandbox proxy L502"): a check judged
	// against another edition than its own cites those instead of its own.
	SpecRef string
}

// strength orders clauses by how much they bind: a check that judges a
// MUST and a MAY (csp/default-restrictive: the default, and the latitude
// to restrict further) is a MUST check.
func strength(c protocol.Clause) int {
	switch c {
	case protocol.ClauseMust, protocol.ClauseMustNot:
		return 3
	case protocol.ClauseShould, protocol.ClauseShouldNot:
		return 2
	case protocol.ClauseMay:
		return 1
	}
	return 0
}

// Judge decides how check m is judged against edition ed's text.
//
// The sentences that bind are the check's requirements that have a sentence
// in ed, and the external rules it names (JSON-RPC, MCP: the same in every
// edition). The check carries the strongest clause among them; among equals
// its declared clause, then the first named. Every host mcpconform drives
// is a web page, so the spec's sandbox-proxy sentences bind it ("If the Host
// is a web page, it MUST wrap the View … through an intermediate Sandbox
// proxy"): in the draft, csp/default-restrictive is a MUST through the
// Sandbox's "Apply restrictive defaults", although the exact default policy
// became the Host's SHOULD. A check none of whose requirements has a
// sentence in ed (a draft-only message judged against the stable text) keeps
// its own edition and clause.
func (r *Register) Judge(m protocol.TestMeta, ed protocol.Edition) Judgement {
	j := Judgement{Clause: m.Clause, Edition: m.Edition}
	if m.Clause == protocol.ClauseInfo || len(m.Requirements) == 0 {
		return j
	}
	var binding []Sentence
	inEdition := false
	for _, id := range m.Requirements {
		if s, ok := r.Find(id, ed); ok {
			binding = append(binding, s)
			j.texts = append(j.texts, s.Quote)
			if ref := fmt.Sprintf("§%s L%d", lastPart(s.Section), s.Line); !strings.Contains(j.SpecRef, ref) {
				j.SpecRef = strings.TrimPrefix(j.SpecRef+"; "+ref, "; ")
			}
			inEdition = true
		} else if s, ok := FindExternal(id); ok {
			j.texts = append(j.texts, s.Quote)
			if s.Clause != "" {
				binding = append(binding, s)
			}
		}
	}
	if !inEdition {
		return j
	}
	best := -1
	for i, s := range binding {
		switch {
		case best < 0 || strength(s.Clause) > strength(binding[best].Clause):
			best = i
		case strength(s.Clause) == strength(binding[best].Clause) && s.Clause == m.Clause && binding[best].Clause != m.Clause:
			best = i
		}
	}
	s := binding[best]
	j.changed = s.Clause != m.Clause || ed != m.Edition
	j.Clause, j.Edition = s.Clause, ed
	if s.Edition != "" {
		j.Sentence = &s
	}
	return j
}

// citeRE matches the citation the suite appends to a verdict's message:
// ` [spec <specRef>: "<the spec sentence>"]`.
var citeRE = regexp.MustCompile(`(?s)\s*\[spec ([^\]"]*): "(.*)"\]\s*$`)

// Recite makes a verdict's message cite the sentence j judges when the
// judgement moved the check to another edition or clause and the suite's
// citation (the check's own quote) is not text of that edition: judged
// against the draft, csp/default-restrictive's "Host MUST use: default-src
// 'none'; …" (the draft's Host SHOULD) becomes the draft Sandbox's MUST
// "Apply restrictive defaults". A citation made of the judged edition's
// sentences of the check's requirements is kept.
func Recite(msg string, j Judgement) string {
	if j.Sentence == nil || !j.changed {
		return msg
	}
	m := citeRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	if madeOf(msg[m[4]:m[5]], j.texts) {
		return msg
	}
	return msg[:m[0]] + fmt.Sprintf(" [spec %s §%s L%d: %q]", j.Edition, lastPart(j.Sentence.Section), j.Sentence.Line, j.Sentence.Quote)
}

// sourceTag is the "(JSON-RPC 2.0 §5) " a quote part may start with.
var sourceTag = regexp.MustCompile(`^\([^)]*\)\s*`)

// QuoteParts splits a check's quote at " ... " into the sentences or
// fragments it is made of, without a leading source tag or final stop.
func QuoteParts(q string) []string {
	var out []string
	for _, p := range strings.Split(q, " ... ") {
		p = strings.TrimSpace(sourceTag.ReplaceAllString(strings.TrimSpace(p), ""))
		out = append(out, strings.TrimRight(p, ".:;"))
	}
	return out
}

// madeOf reports whether every part of quote is text of one of sentences.
func madeOf(quote string, sentences []string) bool {
	for _, p := range QuoteParts(quote) {
		if !slices.ContainsFunc(sentences, func(s string) bool { return strings.Contains(s, p) }) {
			return false
		}
	}
	return true
}
