package specreg

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Derive lists every normative sentence of one edition's apps.mdx: every
// sentence with an RFC 2119 keyword (upper case only, BCP 14), one entry per
// keyword, with its subject and, for host-side ones, its id (before the
// collision overrides Build applies).
//
// Where the keywords are looked for: paragraphs, list items, and the
// comments of code examples (the UIResource interface says "Hosts MAY honor
// these" in a comment). A list item without a keyword that completes a
// lead-in with one ("The Sandbox MUST load ... CSP settings that:" and its
// "- Block dangerous features (object-src 'none')") is a sentence of the
// lead-in's keyword and subject, quoted as lead-in then item; the lead-in
// itself is then not listed on its own. A plain code block right after a
// sentence ending in ":" ("If ui.csp is omitted, Host SHOULD use:") is part
// of that sentence.
//
// The subject (see attribute) is the grammatical subject before the keyword
// when it names a party (Host, Sandbox, agent, View/App, Server); otherwise
// the party a "Host behavior:" label, the lead-in or the heading path names.
func Derive(ed protocol.Edition, src string) []Sentence {
	units := parse(src)
	for _, u := range units {
		if u.kind == kindItem && u.parent != nil && u.parent.kind == kindItem {
			u.parent.hasItems = true
		}
	}
	d := &deriver{ed: ed, distributed: map[*unit]bool{}}
	var out []Sentence
	for _, u := range units {
		out = append(out, d.composite(u)...)
	}
	for _, u := range units {
		out = append(out, d.plain(u)...)
	}
	sortSentences(out)
	return out
}

type deriver struct {
	ed protocol.Edition
	// distributed marks lead-ins whose keyword was handed to the items
	// that complete them.
	distributed map[*unit]bool
}

// sentence is one sentence of a unit: its markdown text and where it starts.
type sentence struct {
	md   string
	off  int
	text string // stripped of markup
}

var sentenceEndRE = regexp.MustCompile(`[.!?]["')\]]*\s+`)

// sentences splits a unit's text at a full stop followed by white space and
// a capital (or a code tick, a bracket or a quote): "e.g. using" and
// "i.e. light" stay whole, "etc. The Host MAY" splits.
func sentences(text string) []sentence {
	var out []sentence
	start := 0
	for _, m := range sentenceEndRE.FindAllStringIndex(text, -1) {
		if m[1] >= len(text) {
			break
		}
		next := text[m[1]]
		if !(next >= 'A' && next <= 'Z') && !strings.ContainsRune("`[\"(*", rune(next)) {
			continue
		}
		out = append(out, sentence{md: strings.TrimSpace(text[start:m[1]]), off: start})
		start = m[1]
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, sentence{md: strings.TrimSpace(text[start:]), off: start})
	}
	for i := range out {
		out[i].text = stripMarkup(out[i].md)
	}
	return out
}

// informalModal is a lower-case "should" or "must": an item that says one
// states its own (informal) rule instead of completing its lead-in.
var informalModal = regexp.MustCompile(`\b(should|must)\b`)

var keywordRE = regexp.MustCompile(`\b(MUST NOT|SHALL NOT|SHOULD NOT|NOT RECOMMENDED|MUST|SHALL|REQUIRED|SHOULD|RECOMMENDED|MAY|OPTIONAL)\b`)

type keywordAt struct {
	kw         Keyword
	start, end int
}

func keywordsIn(text string) []keywordAt {
	var out []keywordAt
	for _, m := range keywordRE.FindAllStringIndex(text, -1) {
		out = append(out, keywordAt{kw: Keyword(text[m[0]:m[1]]), start: m[0], end: m[1]})
	}
	return out
}

func hasKeyword(text string) bool { return keywordRE.MatchString(text) }

func lastSentence(u *unit) (sentence, bool) {
	ss := sentences(u.text)
	if len(ss) == 0 {
		return sentence{}, false
	}
	return ss[len(ss)-1], true
}

// composite lists the sentences a keyword-less list item makes with the
// lead-in it completes.
func (d *deriver) composite(u *unit) []Sentence {
	if u.kind != kindItem || u.hasItems || strings.TrimSpace(u.text) == "" || hasKeyword(stripMarkup(u.text)) || informalModal.MatchString(u.text) {
		return nil
	}
	chain := []string{}
	for anc := u.parent; anc != nil; anc = anc.parent {
		ls, ok := lastSentence(anc)
		lead := ls.text
		if anc.label != "" && len(sentences(anc.text)) <= 1 {
			lead = strings.TrimSpace(anc.label + ": " + ls.text)
		}
		if !ok && anc.label != "" {
			lead = anc.label + ":"
		}
		if !strings.HasSuffix(lead, ":") {
			return nil
		}
		kws := keywordsIn(ls.text)
		if len(kws) == 0 {
			if hasKeyword(stripMarkup(anc.text)) {
				return nil
			}
			chain = append([]string{lead}, chain...)
			continue
		}
		d.distributed[anc] = true
		kw := kws[len(kws)-1]
		subj := d.attribute(anc, ls.text, kws, len(kws)-1)
		item := stripMarkup(u.text)
		if u.label != "" {
			item = u.label + ": " + item
		}
		quote := strings.Join(append(append([]string{lead}, chain...), item), " ")
		s := Sentence{
			Edition: d.ed, Section: u.section, Line: u.starts[0], Keyword: kw.kw, Clause: kw.kw.Clause(),
			Subject: subj.subject, Quote: quote, Attribution: "lead-in: " + subj.why, Unsure: subj.unsure,
		}
		if s.Subject.HostSide() {
			s.ID = makeID(s.Subject, negated(kw.kw), words(stripMarkup(u.text), u.method))
		}
		return []Sentence{s}
	}
	return nil
}

// plain lists the sentences of u that carry their own keyword.
func (d *deriver) plain(u *unit) []Sentence {
	var out []Sentence
	ss := sentences(u.text)
	nkw := 0
	for _, s := range ss {
		nkw += len(keywordsIn(s.text))
	}
	for si, s := range ss {
		kws := keywordsIn(s.text)
		if len(kws) == 0 || (si == len(ss)-1 && d.distributed[u]) {
			continue
		}
		quote := s.text
		if si == 0 && u.label != "" {
			quote = u.label + ": " + quote
		}
		if lead, ok := d.leadFor(u, si, s, kws[0]); ok {
			quote = lead + " " + quote
		}
		for k, kw := range kws {
			subj := d.attribute(u, s.text, kws, k)
			e := Sentence{
				Edition: d.ed, Section: u.section, Line: u.lineAt(s.off), Keyword: kw.kw, Clause: kw.kw.Clause(),
				Subject: subj.subject, Quote: quote, Attribution: subj.why, Unsure: subj.unsure,
			}
			if e.Subject.HostSide() {
				e.ID = plainID(u, s.text, kws, k, nkw, e.Subject)
			}
			out = append(out, e)
		}
	}
	return out
}

// plainID is the id of keyword k of sentence text: the item's label when
// the item has one and this is its only keyword ("host-restrictive-
// default"); for an adjective keyword ("mimeTypes: ... (REQUIRED") the
// words before it; otherwise the words of the predicate that follows it,
// up to the next keyword ("host-not-allow-undeclared-domains").
func plainID(u *unit, text string, kws []keywordAt, k, nkw int, subj Subject) string {
	kw := kws[k]
	switch {
	case u.label != "" && nkw == 1:
		return makeID(subj, false, words(u.label, ""))
	case kw.kw == "REQUIRED" || kw.kw == "OPTIONAL":
		return makeID(subj, false, words(text[:kw.start], u.method))
	}
	end := len(text)
	if k+1 < len(kws) {
		end = kws[k+1].start
	}
	return makeID(subj, negated(kw.kw), words(text[kw.end:end], u.method))
}

// leadFor is the lead-in a keyword-first list item is read with: "Host
// behavior: SHOULD provide the context to the model in future turns".
func (d *deriver) leadFor(u *unit, si int, s sentence, first keywordAt) (string, bool) {
	if u.kind != kindItem || si != 0 || u.parent == nil || strings.TrimSpace(s.text[:first.start]) != "" {
		return "", false
	}
	ls, ok := lastSentence(u.parent)
	if !ok || !strings.HasSuffix(ls.text, ":") {
		return "", false
	}
	return ls.text, true
}

func negated(k Keyword) bool { return strings.Contains(string(k), "NOT") }

// makeID joins the subject, "not" for a negative keyword, and the slug
// words: "host-not-persist-app-tool".
func makeID(s Subject, not bool, w []string) string {
	parts := []string{string(s)}
	if not {
		parts = append(parts, "not")
	}
	parts = append(parts, w...)
	return strings.Join(parts, "-")
}

// slugWords is how many content words an id takes from its sentence.
const slugWords = 4

var (
	tokenRE   = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_/'.-]*`)
	slugClean = regexp.MustCompile(`[^a-z0-9]+`)
	stopWords = set("a an the this that these those to of in on at for with by from as and or but if when while once " +
		"its it their them they be is are was were been any all each every than then so such whether also via " +
		"into per e.g i.e etc can will does do has have not no its own following")
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// words are the first slugWords content words of text, lower case, "this
// notification" and "this request" read as the method the paragraph is
// about (so "Host MUST send this notification" under ui/notifications/
// tool-result and under tool-cancelled differ).
func words(text, method string) []string {
	if method != "" {
		short := method[strings.LastIndex(method, "/")+1:]
		text = regexp.MustCompile(`(?i)\bthis (notification|request)\b`).ReplaceAllString(text, short)
	}
	var out []string
	for _, t := range tokenRE.FindAllString(text, -1) {
		t = strings.ToLower(strings.TrimRight(t, ".'"))
		// A method reads as its name: ui/notifications/sandbox-proxy-ready
		// is sandbox-proxy-ready.
		t = strings.TrimPrefix(strings.TrimPrefix(t, "ui/notifications/"), "ui/")
		t = strings.TrimSuffix(t, "'s")
		if stopWords[t] {
			continue
		}
		t = strings.Trim(slugClean.ReplaceAllString(t, "-"), "-")
		if t == "" || stopWords[t] {
			continue
		}
		out = append(out, t)
		if len(out) == slugWords {
			break
		}
	}
	return out
}

// attribution is a sentence's subject, why, and whether a reader should
// review it.
type attribution struct {
	subject Subject
	why     string
	unsure  bool
}

var (
	determiners  = set("the a an all each any every this these")
	pronouns     = set("it they")
	conjunctions = set("and or but")
	// "While the Host SHOULD ensure ...": the subject follows.
	subordinators = set("while when if once since although though because unless whereas")
	// An NP ends at a verb, preposition or conjunction: "The host has
	// full discretion", "Calling a tool from a closed app".
	npStop = set("has have is are was can will does do from of in for with to on at by over into and or but that which who when if while as via before after")
)

// subjectWord maps a noun to the party it names, "" for none.
func subjectWord(w string) Subject {
	w = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
	switch strings.TrimSuffix(w, "s") {
	case "host", "client":
		return SubjectHost
	case "sandbox", "sandboxe":
		return SubjectSandbox
	case "agent", "model":
		return SubjectAgent
	case "view", "app", "ui":
		return SubjectView
	case "server":
		return SubjectServer
	case "resource":
		// "Resource MUST exist on the server": a resource is the server's.
		return SubjectServer
	}
	return ""
}

// attribute finds the subject of keyword k of sentence text in unit u:
//
//  1. the noun phrase before the keyword (after the last comma, so "If the
//     requested mode is not available, Host SHOULD" reads "Host"), when its
//     head names a party;
//  2. a pronoun ("it MUST") is the first party the sentence names;
//  3. a keyword right after a conjunction ("Host MAY further restrict but
//     MUST NOT allow") shares the previous keyword's subject;
//  4. otherwise (no subject, as in "- SHOULD provide the context", a head
//     that names no party, as in "All View content MUST be rendered", or
//     passive voice) the label before the list ("Host behavior:"), then the
//     heading path; these are marked unsure unless a label decided.
func (d *deriver) attribute(u *unit, text string, kws []keywordAt, k int) attribution {
	from := 0
	if k > 0 {
		from = kws[k-1].end
	}
	pre := text[from:kws[k].start]
	clause := pre
	if i := strings.LastIndex(pre, ","); i >= 0 {
		clause = pre[i+1:]
	}
	toks := tokenRE.FindAllString(clause, -1)
	i := 0
	for i < len(toks) && (determiners[strings.ToLower(toks[i])] || subordinators[strings.ToLower(toks[i])]) {
		i++
	}
	if k > 0 && (i == len(toks) || conjunctions[strings.ToLower(toks[len(toks)-1])]) {
		prev := d.attribute(u, text, kws, k-1)
		prev.why = "shares the subject of the keyword before it (" + prev.why + ")"
		return prev
	}
	if i == len(toks) {
		return d.context(u, "no subject before the keyword", false)
	}
	if pronouns[strings.ToLower(toks[i])] {
		for _, t := range tokenRE.FindAllString(text, -1) {
			if s := subjectWord(t); s != "" {
				return attribution{s, fmt.Sprintf("pronoun %q: the sentence's first party, %s", toks[i], t), true}
			}
		}
		return d.context(u, fmt.Sprintf("pronoun %q with no party named", toks[i]), true)
	}
	np := []string{}
	for j := i; j < len(toks) && !npStop[strings.ToLower(toks[j])]; j++ {
		np = append(np, toks[j])
	}
	if len(np) == 0 {
		return d.context(u, "no noun phrase before the keyword", true)
	}
	head := np[len(np)-1]
	if s := subjectWord(head); s != "" {
		return attribution{s, "subject: " + strings.Join(np, " "), false}
	}
	modifier := false
	for _, t := range np[:len(np)-1] {
		if subjectWord(t) != "" {
			modifier = true
		}
	}
	why := fmt.Sprintf("subject %q names no party", strings.Join(np, " "))
	if modifier {
		why = fmt.Sprintf("subject %q: its head %q names no party", strings.Join(np, " "), head)
	}
	return d.context(u, why, true)
}

// context attributes a sentence without a party of its own: a "Host
// behavior:" label first, then the heading path, deepest heading first.
func (d *deriver) context(u *unit, why string, unsure bool) attribution {
	if u.context != "" {
		return attribution{u.context, why + "; label: " + string(u.context) + " behavior", false}
	}
	if s, h := sectionSubject(u.section); s != "" {
		return attribution{s, why + "; heading: " + h, true}
	}
	return attribution{SubjectHost, why + "; no heading names a party: host by default", true}
}

// partyHeadings are the words a heading names a party by, in priority
// order: "App-Provided Tools Security" is about the host's security
// measures, "Client (Host) Capabilities" about the host.
var partyHeadings = []struct {
	re      *regexp.Regexp
	subject Subject
}{
	{regexp.MustCompile(`(?i)\b(host|hosts|client)\b`), SubjectHost},
	{regexp.MustCompile(`(?i)\bsandbox\b`), SubjectSandbox},
	{regexp.MustCompile(`(?i)\b(security|mitigations)\b`), SubjectHost},
	{regexp.MustCompile(`(?i)\b(server|servers|content requirements|ui resource format)\b`), SubjectServer},
	{regexp.MustCompile(`(?i)\b(view|views|app|apps|guest)\b`), SubjectView},
}

var mcpAppsRE = regexp.MustCompile(`(?i)\bMCP Apps\b`)

// sectionSubject is the party the deepest heading that names one says:
// "Host Behavior" the host, "Server Behavior" the server, "Security
// Implications" the host (its mitigations are the host's), "App (Guest UI)
// Capabilities" the View. Headings that name a direction ("Requests (View
// → Host)") and the method name are skipped.
func sectionSubject(section string) (Subject, string) {
	parts := strings.Split(section, " > ")
	for i := len(parts) - 1; i >= 0; i-- {
		h := parts[i]
		if strings.Contains(h, "→") || !strings.Contains(h, " ") && strings.Contains(h, "/") {
			continue
		}
		h2 := mcpAppsRE.ReplaceAllString(h, "")
		for _, p := range partyHeadings {
			if p.re.MatchString(h2) {
				return p.subject, h
			}
		}
	}
	return "", ""
}
