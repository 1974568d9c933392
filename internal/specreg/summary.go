package specreg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Marshal is register.json's exact bytes: indented JSON, no HTML escaping
// (the quotes keep their < > &), a final newline.
func Marshal(r *Register) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Summary tells how many normative sentences each edition has, how they
// were attributed, and lists the attributions marked unsure.
func Summary(r *Register) string {
	var b strings.Builder
	for _, src := range r.Sources {
		ed := src.Edition
		all := append(filter(r.Requirements, ed), filter(r.Excluded, ed)...)
		by := map[Subject]int{}
		for _, s := range all {
			by[s.Subject]++
		}
		host := filter(r.Requirements, ed)
		fmt.Fprintf(&b, "%s (%s@%.8s): %d normative sentences; host %d, sandbox %d, agent %d (register: %d); view %d, server %d\n",
			ed, src.Path, src.Commit, len(all), by[SubjectHost], by[SubjectSandbox], by[SubjectAgent], len(host), by[SubjectView], by[SubjectServer])
		kw := map[protocol.Clause]int{}
		for _, s := range host {
			kw[s.Clause]++
		}
		fmt.Fprintf(&b, "  register by clause: MUST %d, MUST NOT %d, SHOULD %d, SHOULD NOT %d, MAY %d\n",
			kw[protocol.ClauseMust], kw[protocol.ClauseMustNot], kw[protocol.ClauseShould], kw[protocol.ClauseShouldNot], kw[protocol.ClauseMay])
		for _, s := range all {
			if s.Unsure {
				fmt.Fprintf(&b, "  unsure L%d %s -> %s: %s [%s]\n", s.Line, s.Keyword, s.Subject, s.Quote, s.Attribution)
			}
		}
	}
	return b.String()
}

func filter(ss []Sentence, ed protocol.Edition) []Sentence {
	var out []Sentence
	for _, s := range ss {
		if s.Edition == ed {
			out = append(out, s)
		}
	}
	return out
}
