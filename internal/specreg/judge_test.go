package specreg

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// A check on a sentence whose keyword the draft changed carries the
// keyword of the edition judged and cites that edition's sentence.
func TestJudgeFollowsTheEdition(t *testing.T) {
	reg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	m := protocol.TestMeta{ID: "x/exact-default", Clause: protocol.ClauseMust, Edition: protocol.EditionStable, Requirements: []string{"host-restrictive-default"}}
	msg := `connect allowed [spec §L275: "If ui.csp is omitted, Host MUST use: default-src 'none'"]`
	if j := reg.Judge(m, protocol.EditionStable); j.Clause != protocol.ClauseMust || Recite(msg, j) != msg {
		t.Errorf("stable: clause %s, message %q; want MUST and the message as written", j.Clause, Recite(msg, j))
	}
	j := reg.Judge(m, protocol.EditionDraft)
	got := Recite(msg, j)
	if j.Clause != protocol.ClauseShould || j.Edition != protocol.EditionDraft || !strings.HasPrefix(got, "connect allowed [spec draft §") || !strings.Contains(got, "Host SHOULD use: default-src 'none'") {
		t.Errorf("draft: clause %s edition %s message %q; want SHOULD, draft, citing the draft's Host SHOULD", j.Clause, j.Edition, got)
	}
	// A sandbox MUST named too binds a web host: the check stays MUST.
	m.Requirements = append(m.Requirements, "sandbox-apply-restrictive-defaults-csp")
	if j := reg.Judge(m, protocol.EditionDraft); j.Clause != protocol.ClauseMust || j.Sentence.Subject != SubjectSandbox {
		t.Errorf("draft with the sandbox sentence: clause %s sentence %+v; want the Sandbox's MUST", j.Clause, j.Sentence)
	}
	// A draft-only requirement judged against the stable text: the check
	// keeps its own edition and clause.
	d := protocol.TestMeta{ID: "x/download", Clause: protocol.ClauseShould, Edition: protocol.EditionDraft, Requirements: []string{"host-sanitize-filenames-prevent-path"}}
	if j := reg.Judge(d, protocol.EditionStable); j.Clause != protocol.ClauseShould || j.Edition != protocol.EditionDraft || j.Sentence != nil {
		t.Errorf("a draft-only check judged against stable: %+v; want its own SHOULD and edition draft", j)
	}
	// External rules bind in every edition; the strongest clause wins.
	e := protocol.TestMeta{ID: "x/reply", Clause: protocol.ClauseMust, Edition: protocol.EditionStable, Requirements: []string{"jsonrpc-reply-to-request", "host-ensure-view-mcp-connection"}}
	if j := reg.Judge(e, protocol.EditionDraft); j.Clause != protocol.ClauseMust || j.Sentence != nil || j.Edition != protocol.EditionDraft {
		t.Errorf("a check on an external MUST and a SHOULD: %+v; want MUST (the external rule), edition draft", j)
	}
}
