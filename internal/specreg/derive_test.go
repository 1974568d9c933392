package specreg

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// A small spec in the shape of apps.mdx, written for these tests: each
// block exercises one rule of Derive.
const miniSpec = "# Title\n" + // 1
	"\n" + // 2
	"## Specification\n" + // 3
	"\n" + // 4
	"### UI Resource Format\n" + // 5
	"\n" + // 6
	"```typescript\n" + // 7
	"interface Widget {\n" + // 8
	"  /**\n" + // 9
	"   * MUST use the `w://` scheme.\n" + // 10
	"   * Hosts MAY cache it.\n" + // 11
	"   */\n" + // 12
	"  uri: string; // MUST be unique\n" + // 13
	"}\n" + // 14
	"```\n" + // 15
	"\n" + // 16
	"#### Host Behavior:\n" + // 17
	"\n" + // 18
	"- **Strict Default:** If `w.csp` is omitted, Host MUST use:\n" + // 19
	"\n" + // 20
	"  ```\n" + // 21
	"  default-src 'none';\n" + // 22
	"  ```\n" + // 23
	"\n" + // 24
	"- **No Widening:** Host MAY narrow but MUST NOT widen the list\n" + // 25
	"\n" + // 26
	"### Proxy\n" + // 27
	"\n" + // 28
	"If the Host is a web page, it MUST use a proxy. The proxy is plain.\n" + // 29
	"\n" + // 30
	"1. The Sandbox MUST load the page with settings that:\n" + // 31
	"   - Block plugins (`object-src 'none'`)\n" + // 32
	"   - If `x` is set, the Sandbox MAY relax it\n" + // 33
	"2. While the Host SHOULD check messages, it MAY drop some.\n" + // 34
	"\n" + // 35
	"### Messages\n" + // 36
	"\n" + // 37
	"`ui/ping-widget` - Host MUST answer this request within a turn, etc. The Host MAY log it.\n" + // 38
	"\n" + // 39
	"Host behavior:\n" + // 40
	"- SHOULD keep the last one\n" + // 41
	"- If two arrive, Host SHOULD drop the first\n" + // 42
	"\n" + // 43
	"**View behavior:**\n" + // 44
	"- MAY ignore it\n" + // 45
	"\n" + // 46
	"## Security Implications\n" + // 47
	"\n" + // 48
	"All View content MUST be boxed.\n" + // 49
	"\n" + // 50
	"Hosts SHOULD add these protections:\n" + // 51
	"\n" + // 52
	"1. **Labels:**\n" + // 53
	"   - Name the widget in lists\n" + // 54
	"\n" + // 55
	"Widget tools MUST follow the widget:\n" + // 56
	"\n" + // 57
	"- Tools vanish with the widget\n" + // 58
	"- Calling a tool of a closed widget MUST fail\n" + // 59
	"- Hosts should log calls\n" // 60

func deriveMini(t *testing.T) map[int][]Sentence {
	t.Helper()
	byLine := map[int][]Sentence{}
	for _, s := range Derive(protocol.EditionDraft, miniSpec) {
		byLine[s.Line] = append(byLine[s.Line], s)
	}
	return byLine
}

func one(t *testing.T, byLine map[int][]Sentence, line int) Sentence {
	t.Helper()
	if len(byLine[line]) != 1 {
		t.Fatalf("L%d: want one sentence, got %+v", line, byLine[line])
	}
	return byLine[line][0]
}

func TestDeriveRules(t *testing.T) {
	byLine := deriveMini(t)
	for _, c := range []struct {
		line    int
		id      string
		clause  protocol.Clause
		subject Subject
		quote   string
		unsure  bool
	}{
		// A comment of a code example, its subject from the heading.
		{10, "", protocol.ClauseMust, SubjectServer, "MUST use the w:// scheme.", true},
		{11, "host-cache", protocol.ClauseMay, SubjectHost, "Hosts MAY cache it.", false},
		{13, "", protocol.ClauseMust, SubjectServer, "MUST be unique", true},
		// A labelled item: the id is the label, the plain code block after
		// its ":" is part of the sentence.
		{19, "host-strict-default", protocol.ClauseMust, SubjectHost, "Strict Default: If w.csp is omitted, Host MUST use: default-src 'none';", false},
		// A pronoun is the sentence's first party.
		{29, "host-use-proxy", protocol.ClauseMust, SubjectHost, "If the Host is a web page, it MUST use a proxy.", true},
		// An item that completes a lead-in takes its keyword and subject.
		{32, "sandbox-block-plugins-object-src-none", protocol.ClauseMust, SubjectSandbox, "The Sandbox MUST load the page with settings that: Block plugins (object-src 'none')", false},
		{33, "sandbox-relax", protocol.ClauseMay, SubjectSandbox, "If x is set, the Sandbox MAY relax it", false},
		// A keyword-first item is read with its "Host behavior:" lead-in.
		{41, "host-keep-last-one", protocol.ClauseShould, SubjectHost, "Host behavior: SHOULD keep the last one", false},
		{42, "host-drop-first", protocol.ClauseShould, SubjectHost, "If two arrive, Host SHOULD drop the first", false},
		{45, "", protocol.ClauseMay, SubjectView, "View behavior: MAY ignore it", false},
		// A head that names no party ("View content"): the heading decides.
		{49, "host-boxed", protocol.ClauseMust, SubjectHost, "All View content MUST be boxed.", true},
		// A label-only item passes the lead-in on to the items under it.
		{54, "host-name-widget-lists", protocol.ClauseShould, SubjectHost, "Hosts SHOULD add these protections: Labels: Name the widget in lists", false},
		{58, "host-tools-vanish-widget", protocol.ClauseMust, SubjectHost, "Widget tools MUST follow the widget: Tools vanish with the widget", true},
		{59, "host-fail", protocol.ClauseMust, SubjectHost, "Calling a tool of a closed widget MUST fail", true},
	} {
		s := one(t, byLine, c.line)
		if s.ID != c.id || s.Clause != c.clause || s.Subject != c.subject || s.Quote != c.quote || s.Unsure != c.unsure {
			t.Errorf("L%d: got id %q clause %s subject %s unsure %v quote %q (%s)\nwant id %q clause %s subject %s unsure %v quote %q",
				c.line, s.ID, s.Clause, s.Subject, s.Unsure, s.Quote, s.Attribution, c.id, c.clause, c.subject, c.unsure, c.quote)
		}
	}
}

// A sentence with two keywords is two entries; the second keyword after a
// conjunction shares the first one's subject, after a comma a pronoun
// names the sentence's first party.
func TestDeriveTwoKeywords(t *testing.T) {
	byLine := deriveMini(t)
	for _, c := range []struct {
		line int
		ids  []string
	}{
		{25, []string{"host-narrow", "host-not-widen-list"}},
		{34, []string{"host-check-messages", "host-drop-some"}},
		// A method paragraph: "this request" reads as the method's name,
		// "etc. The Host" starts a sentence.
		{38, []string{"host-answer-ping-widget-within-turn", "host-log"}},
	} {
		var got []string
		for _, s := range byLine[c.line] {
			got = append(got, s.ID)
		}
		if strings.Join(got, ",") != strings.Join(c.ids, ",") {
			t.Errorf("L%d: ids %v, want %v (%+v)", c.line, got, c.ids, byLine[c.line])
		}
	}
	for _, s := range byLine[38] {
		if s.Section != "Messages > ui/ping-widget" {
			t.Errorf("L38 section %q, want the heading path then the method", s.Section)
		}
	}
}

// What is not a requirement: a lead-in whose items took its keyword, a
// lower-case "should", a sentence without a keyword.
func TestDeriveLeavesOut(t *testing.T) {
	byLine := deriveMini(t)
	for _, line := range []int{29, 31, 51, 56, 60} {
		for _, s := range byLine[line] {
			if line == 29 && s.Quote == "If the Host is a web page, it MUST use a proxy." {
				continue
			}
			t.Errorf("L%d should give no sentence of its own, got %+v", line, s)
		}
	}
}

func TestSentencesSplit(t *testing.T) {
	got := sentences("Host MUST send it (e.g. using X), including user action, etc. The Host MAY say why. `ui/x` is sent, i.e. once.")
	var texts []string
	for _, s := range got {
		texts = append(texts, s.text)
	}
	want := []string{"Host MUST send it (e.g. using X), including user action, etc.", "The Host MAY say why.", "ui/x is sent, i.e. once."}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("sentences: got %q, want %q", texts, want)
	}
}

func TestBuildRefusesCollisions(t *testing.T) {
	spec := "### Host Behavior\n\nHost MUST send the big thing now.\n\nHost MUST send the big thing now, again.\n"
	_, err := build([]Input{{Edition: protocol.EditionStable, Text: spec}}, nil)
	if err == nil || !strings.Contains(err.Error(), "host-send-big-thing-now") || !strings.Contains(err.Error(), "add an override") {
		t.Errorf("a collision must fail the build and name the id and the override to add, got %v", err)
	}
}

func TestKeywordClause(t *testing.T) {
	for kw, want := range map[Keyword]protocol.Clause{
		"MUST": protocol.ClauseMust, "REQUIRED": protocol.ClauseMust, "SHALL": protocol.ClauseMust,
		"MUST NOT": protocol.ClauseMustNot, "SHALL NOT": protocol.ClauseMustNot,
		"SHOULD": protocol.ClauseShould, "RECOMMENDED": protocol.ClauseShould,
		"SHOULD NOT": protocol.ClauseShouldNot, "NOT RECOMMENDED": protocol.ClauseShouldNot,
		"MAY": protocol.ClauseMay, "OPTIONAL": protocol.ClauseMay,
	} {
		if got := kw.Clause(); got != want {
			t.Errorf("%s.Clause() = %s, want %s", kw, got, want)
		}
	}
}
