package specreg

import (
	"regexp"
	"strings"
)

// unit is one block of spec text that can hold normative sentences: a
// paragraph, a list item or a comment paragraph inside a code example.
type unit struct {
	text string
	// starts[i] is the 1-based spec line where text[offs[i]:] begins.
	starts []int
	offs   []int
	kind   unitKind
	indent int
	// label is an item's bold lead ("Restrictive Default" of
	// "- **Restrictive Default:** ..."), cut from text.
	label string
	// parent is the lead-in of a list item: the enclosing item, or for a
	// top-level item the paragraph just before the list.
	parent  *unit
	section string
	// method is the message a paragraph run describes
	// ("`ui/resource-teardown` - Host notifies View ...").
	method string
	// context is the subject a "Host behavior:" style label names for the
	// blocks after it, until the next heading or method.
	context Subject
	// closed is set once a blank line or another block ended a paragraph.
	closed bool
	// hasItems is set on an item that has items nested under it.
	hasItems bool
}

type unitKind int

const (
	kindParagraph unitKind = iota
	kindItem
	kindComment
)

func (u *unit) add(line int, text string) {
	if u.text != "" {
		u.text += "\n"
	}
	u.offs = append(u.offs, len(u.text))
	u.starts = append(u.starts, line)
	u.text += text
}

// lineAt is the spec line of offset off in u.text.
func (u *unit) lineAt(off int) int {
	line := u.starts[0]
	for i, o := range u.offs {
		if o <= off {
			line = u.starts[i]
		}
	}
	return line
}

var (
	headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*$`)
	fenceRE   = regexp.MustCompile("^(\\s*)```\\s*([A-Za-z]*)")
	itemRE    = regexp.MustCompile(`^(\s*)(?:[-*]|\d+\.)\s+(.*)$`)
	labelRE   = regexp.MustCompile(`^\*\*([^*]+?):?\*\*:?\s*`)
	// A paragraph naming a method it then describes:
	// "`ui/open-link` - Request host to open external URL".
	methodRE = regexp.MustCompile("^`([a-z]+/[A-Za-z0-9/_-]+)`\\s*(?:\\([^)]*\\)\\s*)?-\\s*")
	// A label that says whose behaviour the following list describes:
	// "Host behavior:", "**View behavior:**", "Host behavior (optional):".
	contextLabelRE = regexp.MustCompile(`(?:^|[.:]\s+)\**(Host|View|App|Server|Sandbox)s?\s+[Bb]ehavior(?:\s*\([^)]*\))?\**:?\**\s*$`)
	blockStartRE   = regexp.MustCompile(`^\s*/\*\*?\s?(.*)$`)
	blockEndRE     = regexp.MustCompile(`^\s*\*/`)
	blockLineRE    = regexp.MustCompile(`^\s*\*(?:\s(.*)|)$`)
	lineCommentRE  = regexp.MustCompile(`(?:^|\s)//\s?(.*)$`)
)

// parse cuts an apps.mdx into units, with the heading path, method and
// context label each sits under.
func parse(src string) []*unit {
	p := &parser{}
	for i, line := range strings.Split(src, "\n") {
		p.line(i+1, line)
	}
	p.endComment()
	return p.units
}

type parser struct {
	units    []*unit
	headings [7]string
	method   string
	context  Subject
	// para is the open paragraph; lead is the last paragraph, a list's
	// lead-in while only blank lines and the list follow it.
	para, lead *unit
	items      []*unit // open list items, outermost first
	lastBlock  *unit   // the last paragraph or item, for a code block to attach to
	blank      bool    // the previous line was blank
	fence      bool
	fenceLang  string
	fenceText  []string
	attach     *unit // the unit a plain code block completes ("Host MUST use:")
	comment    *unit
}

func (p *parser) section() string {
	var parts []string
	for lvl := 2; lvl <= 6; lvl++ {
		h := p.headings[lvl]
		if h == "" || (lvl == 2 && h == "Specification") {
			continue
		}
		parts = append(parts, h)
	}
	if p.method != "" {
		parts = append(parts, p.method)
	}
	return strings.Join(parts, " > ")
}

func (p *parser) newUnit(kind unitKind, line int, text string, indent int) *unit {
	u := &unit{kind: kind, indent: indent, section: p.section(), method: p.method, context: p.context}
	u.add(line, text)
	p.units = append(p.units, u)
	return u
}

func (p *parser) line(n int, line string) {
	if p.fence {
		p.fenceLine(n, line)
		return
	}
	if m := fenceRE.FindStringSubmatch(line); m != nil {
		p.fence, p.fenceLang, p.fenceText = true, strings.ToLower(m[2]), nil
		p.attach = nil
		if p.lastBlock != nil && p.fenceLang == "" && strings.HasSuffix(strings.TrimSpace(p.lastBlock.text), ":") {
			p.attach = p.lastBlock
		}
		p.closePara()
		p.lead = nil
		return
	}
	if m := headingRE.FindStringSubmatch(line); m != nil {
		lvl := len(m[1])
		p.headings[lvl] = cleanHeading(m[2])
		for l := lvl + 1; l < len(p.headings); l++ {
			p.headings[l] = ""
		}
		p.method, p.context = "", ""
		p.closePara()
		p.items, p.lead, p.lastBlock = nil, nil, nil
		p.blank = false
		return
	}
	trimmed := strings.TrimSpace(line)
	if trimmed == "" {
		p.closePara()
		p.blank = true
		return
	}
	defer func() { p.blank = false }()
	if strings.HasPrefix(trimmed, "|") {
		// A table: no normative sentence in this spec's tables, and it
		// ends any lead-in.
		p.closePara()
		p.items, p.lead = nil, nil
		return
	}
	if m := itemRE.FindStringSubmatch(line); m != nil {
		p.item(n, len(m[1]), m[2])
		return
	}
	text := strings.TrimPrefix(trimmed, "> ")
	if len(line)-len(strings.TrimLeft(line, " ")) > 0 && len(p.items) > 0 && !p.blank {
		// A continuation line of the open item.
		p.items[len(p.items)-1].add(n, text)
		return
	}
	if p.para != nil && !p.para.closed {
		p.para.add(n, text)
		p.noteContext(p.para)
		return
	}
	p.items = nil
	if m := methodRE.FindStringSubmatch(text); m != nil {
		p.method, p.context = m[1], ""
		text = text[len(m[0]):]
	}
	p.para = p.newUnit(kindParagraph, n, text, 0)
	p.lead, p.lastBlock = p.para, p.para
	p.noteContext(p.para)
}

// noteContext reads a "Host behavior:" style label at the end of a
// paragraph: it names the subject of what follows.
func (p *parser) noteContext(u *unit) {
	if m := contextLabelRE.FindStringSubmatch(strings.TrimSpace(u.text)); m != nil {
		p.context = subjectWord(m[1])
	}
}

func (p *parser) closePara() {
	if p.para != nil {
		p.para.closed = true
		p.para = nil
	}
}

func (p *parser) item(n, indent int, text string) {
	p.closePara()
	for len(p.items) > 0 && p.items[len(p.items)-1].indent >= indent {
		p.items = p.items[:len(p.items)-1]
	}
	label := ""
	if m := labelRE.FindStringSubmatch(text); m != nil {
		label = strings.TrimSpace(stripMarkup(m[1]))
		text = text[len(m[0]):]
	}
	u := p.newUnit(kindItem, n, text, indent)
	u.label = label
	if len(p.items) > 0 {
		u.parent = p.items[len(p.items)-1]
	} else if p.lead != nil {
		u.parent = p.lead
	}
	p.items = append(p.items, u)
	p.lastBlock = u
}

func (p *parser) fenceLine(n int, line string) {
	if fenceRE.MatchString(line) {
		p.fence = false
		p.endComment()
		if p.attach != nil && len(p.fenceText) > 0 {
			p.attach.text += " " + strings.Join(p.fenceText, " ")
		}
		p.attach = nil
		return
	}
	if p.attach != nil {
		if t := strings.TrimSpace(line); t != "" {
			p.fenceText = append(p.fenceText, t)
		}
		return
	}
	if p.fenceLang == "mermaid" {
		return
	}
	p.commentLine(n, line)
}

// commentLine collects the comments of a code example: a /** */ block is
// one or more paragraphs (split at empty " *" lines), a // comment one.
func (p *parser) commentLine(n int, line string) {
	switch {
	case blockEndRE.MatchString(line):
		p.endComment()
	case blockStartRE.MatchString(line) && strings.Contains(line, "/*"):
		p.endComment()
		if rest := strings.TrimSpace(strings.TrimSuffix(blockStartRE.FindStringSubmatch(line)[1], "*/")); rest != "" {
			p.comment = p.newUnit(kindComment, n, rest, 0)
		}
		if strings.Contains(line, "*/") {
			p.endComment()
		}
	case blockLineRE.MatchString(line):
		rest := strings.TrimSpace(blockLineRE.FindStringSubmatch(line)[1])
		if rest == "" {
			p.endComment()
		} else if p.comment == nil {
			p.comment = p.newUnit(kindComment, n, rest, 0)
		} else {
			p.comment.add(n, rest)
		}
	default:
		p.endComment()
		if m := lineCommentRE.FindStringSubmatch(line); m != nil && strings.TrimSpace(m[1]) != "" {
			p.newUnit(kindComment, n, strings.TrimSpace(m[1]), 0)
		}
	}
}

func (p *parser) endComment() { p.comment = nil }

func cleanHeading(h string) string {
	return strings.TrimSpace(strings.TrimSuffix(stripMarkup(h), ":"))
}

var (
	boldRE   = regexp.MustCompile(`\*\*(.+?)\*\*`)
	italicRE = regexp.MustCompile(`(^|[^\w*])\*([^*\s][^*]*?)\*`)
	codeRE   = regexp.MustCompile("`([^`]*)`")
	linkRE   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	spaceRE  = regexp.MustCompile(`\s+`)
)

// stripMarkup removes markdown markup (bold, italics, code ticks, link
// targets, escapes) and folds white space: the text a reader sees.
func stripMarkup(s string) string {
	s = linkRE.ReplaceAllString(s, "$1")
	s = codeRE.ReplaceAllString(s, "$1")
	s = boldRE.ReplaceAllString(s, "$1")
	s = italicRE.ReplaceAllString(s, "$1$2")
	s = strings.NewReplacer(`\<`, "<", `\>`, ">").Replace(s)
	return strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
}
