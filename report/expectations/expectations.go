// Package expectations reads, applies and writes expectations files: for each
// host, the checks known to fail there, so a release can be gated on "no
// new failures" while known host bugs are tracked.
//
// The file is YAML, a mapping from host name to a list of entries:
//
//	# .mcpconform/expectations.yml
//	claude-web:
//	  - display/theme-toggle                # a check id: expected to fail
//	  - id: display/host-context-changed    # the same, with a reason
//	    reason: "host bug #123"
//	  - id: tools/call-result               # a known flaky check
//	    reason: slow under load
//	    allow: [PASS, TIMEOUT]
//	chatgpt: []
//
// An entry without allow expects any failing status (FAIL, TIMEOUT, ERROR);
// a pass makes it stale. An entry with allow accepts exactly those statuses.
// A check that was skipped, not run, or not selected at all is tolerated
// whatever its entry says. See report.Case.Outcome for the full table.
package expectations

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// Entry is one line of a host's list.
type Entry struct {
	ID     string
	Reason string
	// Allow is nil for "expected to fail", else the accepted statuses.
	Allow []protocol.Status
	// Line is where the entry starts in the file.
	Line int

	node *yaml.Node // the list item, kept so Update preserves comments
}

// Expectation is the entry as report.Case carries it.
func (e Entry) Expectation() report.Expectation {
	return report.Expectation{ID: e.ID, Reason: e.Reason, Allow: e.Allow, Line: e.Line}
}

// Expectations is a parsed expectations file.
type Expectations struct {
	// File is the name the file was read from, as given.
	File  string
	hosts map[string]*hostList
	order []string   // host names in file order
	doc   *yaml.Node // the document, for Update; nil for an empty file
}

type hostList struct {
	line    int
	key     *yaml.Node
	seq     *yaml.Node // nil when the value was null
	entries []Entry
	byID    map[string]int
}

// Error is a grammar error at a line of an expectations file.
type Error struct {
	File string
	Line int // 0 when the YAML parser could not say
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads and parses the expectations file at path.
func Load(path string) (*Expectations, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	return Parse(path, data)
}

// maxErrors caps how many grammar errors one Parse reports.
const maxErrors = 20

// Parse parses an expectations file; name is used in errors. Every grammar
// error found is reported (up to 20), each as an *Error naming the file and
// the line, joined with errors.Join.
func Parse(name string, data []byte) (*Expectations, error) {
	e := &Expectations{File: name, hosts: map[string]*hostList{}}
	if err := checkTabs(name, data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return e, nil // an empty file: no expectations
		}
		return nil, syntaxError(name, data, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &Error{File: name, Line: next.Line, Msg: "a second YAML document: an expectations file holds one mapping of host names"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(name, data, err)
	}
	e.doc = &doc
	p := parser{file: name}
	p.document(e, &doc)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
		if len(p.errs) > maxErrors {
			p.errs = append(p.errs[:maxErrors], &Error{File: name, Msg: fmt.Sprintf("and %d more errors", len(p.errs)-maxErrors)})
		}
		errs := make([]error, len(p.errs))
		for i, pe := range p.errs {
			errs[i] = pe
		}
		return nil, errors.Join(errs...)
	}
	return e, nil
}

type parser struct {
	file string
	errs []*Error
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func (p *parser) document(e *Expectations, doc *yaml.Node) {
	if len(doc.Content) == 0 {
		return
	}
	root := resolve(doc.Content[0])
	if isNull(root) {
		return // a file of only comments
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "the file must be a mapping of host name to a list of check ids, e.g.\n  claude-web:\n    - display/theme-toggle")
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
		if k.Kind != yaml.ScalarNode || strings.TrimSpace(k.Value) == "" || isNull(k) {
			p.errorf(k, "a host name must be a non-empty string")
			continue
		}
		host := k.Value
		if prev, dup := e.hosts[host]; dup {
			p.errorf(k, "host %q is listed twice (first at line %d)", host, prev.line)
			continue
		}
		hl := &hostList{line: k.Line, key: root.Content[i], byID: map[string]int{}}
		e.hosts[host] = hl
		e.order = append(e.order, host)
		switch {
		case isNull(v):
		case v.Kind == yaml.SequenceNode:
			hl.seq = v
			for _, item := range v.Content {
				p.entry(hl, host, item)
			}
		default:
			p.errorf(v, "host %q: the value must be a list of entries (a check id, or a mapping with id, reason and allow)", host)
		}
	}
}

// idPattern is a check id: area/slug, no spaces.
var idPattern = regexp.MustCompile(`^[^\s/]+(/[^\s/]+)+$`)

func (p *parser) entry(hl *hostList, host string, item *yaml.Node) {
	n := resolve(item)
	ent := Entry{Line: n.Line, node: item}
	switch n.Kind {
	case yaml.ScalarNode:
		if isNull(n) {
			p.errorf(n, "host %q: an empty entry", host)
			return
		}
		ent.ID = n.Value
	case yaml.MappingNode:
		seen := map[string]bool{}
		var keys []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
			keys = append(keys, k.Value)
			if seen[k.Value] {
				p.errorf(k, "key %q given twice", k.Value)
				continue
			}
			seen[k.Value] = true
			switch k.Value {
			case "id":
				if v.Kind != yaml.ScalarNode || isNull(v) {
					p.errorf(v, "id must be a check id such as display/theme-toggle")
					continue
				}
				ent.ID = v.Value
			case "reason":
				if v.Kind != yaml.ScalarNode {
					p.errorf(v, "reason must be text")
					continue
				}
				if !isNull(v) {
					ent.Reason = v.Value
				}
			case "allow":
				ent.Allow = p.allow(v)
			default:
				if len(n.Content) == 2 && idPattern.MatchString(k.Value) {
					p.errorf(k, "%q is read as a mapping because of the colon and space; write `- id: %s` with `reason: …` on the next line, or quote the whole entry", k.Value+": "+v.Value, k.Value)
				} else {
					p.errorf(k, "unknown key %q: an entry has id, reason and allow", k.Value)
				}
			}
		}
		if !seen["id"] {
			if len(keys) == 1 && idPattern.MatchString(keys[0]) {
				return // already reported as the colon-and-space mistake
			}
			p.errorf(n, "entry without id")
			return
		}
		if ent.ID == "" {
			return
		}
	default:
		p.errorf(n, "host %q: an entry is a check id or a mapping with id, reason and allow", host)
		return
	}
	if !idPattern.MatchString(ent.ID) {
		p.errorf(n, "%q is not a check id (area/slug, e.g. display/theme-toggle; `mcpconform list` prints them)", ent.ID)
		return
	}
	if j, dup := hl.byID[ent.ID]; dup {
		p.errorf(n, "host %q: %s is listed twice (first at line %d)", host, ent.ID, hl.entries[j].Line)
		return
	}
	hl.byID[ent.ID] = len(hl.entries)
	hl.entries = append(hl.entries, ent)
}

func (p *parser) allow(v *yaml.Node) []protocol.Status {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.errorf(v, "allow must be a non-empty list of statuses, e.g. [PASS, TIMEOUT]")
		return nil
	}
	var out []protocol.Status
	seen := map[protocol.Status]bool{}
	bad := false
	for _, item := range v.Content {
		s := resolve(item)
		st := protocol.Status(strings.ToUpper(strings.TrimSpace(s.Value)))
		if s.Kind == yaml.ScalarNode && st == protocol.StatusOptional {
			p.errorf(s, "allow: OPTIONAL (a MAY check found the feature not implemented) is never a failure and needs no entry")
			bad = true
			continue
		}
		if s.Kind == yaml.ScalarNode && st == protocol.StatusBlocked {
			p.errorf(s, "allow: BLOCKED (blocked by another check's failure) is never a failure and needs no entry: the entry belongs to the blocking check")
			bad = true
			continue
		}
		if s.Kind != yaml.ScalarNode || !known(st) {
			p.errorf(s, "allow: %q is not a status (%s)", s.Value, statusNames())
			bad = true
			continue
		}
		if seen[st] {
			p.errorf(s, "allow: %s given twice", st)
			continue
		}
		seen[st] = true
		out = append(out, st)
	}
	if !bad && len(out) == 1 && out[0] == protocol.StatusPass {
		p.errorf(v, "allow: [PASS] accepts only a pass, which needs no entry: remove the entry, or add the failing statuses it may have")
	}
	return out
}

// known reports whether s is a status an allow list may name: every status
// but OPTIONAL and BLOCKED, which never need an entry.
func known(s protocol.Status) bool {
	for _, k := range protocol.Statuses {
		if s == k && s != protocol.StatusOptional && s != protocol.StatusBlocked {
			return true
		}
	}
	return false
}

func statusNames() string {
	var s []string
	for _, k := range protocol.Statuses {
		if known(k) {
			s = append(s, string(k))
		}
	}
	return strings.Join(s, ", ")
}

// checkTabs reports a tab in indentation with its line: YAML forbids it and
// the parser's own message does not say where.
func checkTabs(name string, data []byte) error {
	for i, l := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, "\t") {
			return &Error{File: name, Line: i + 1, Msg: "a tab in the indentation: YAML indents with spaces"}
		}
	}
	return nil
}

var yamlLine = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)

// syntaxError turns a yaml.v3 error into an *Error with a line. The parser
// often names the line where the enclosing block starts rather than the
// line at fault, so the line is the first prefix of the file that fails
// with the same message; the parser's line is the fallback.
func syntaxError(name string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	lines := strings.SplitAfter(string(data), "\n")
	for k := 1; k <= len(lines); k++ {
		var n yaml.Node
		perr := yaml.NewDecoder(strings.NewReader(strings.Join(lines[:k], ""))).Decode(&n)
		if perr == nil || errors.Is(perr, io.EOF) {
			continue
		}
		pmsg := strings.TrimPrefix(perr.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(perr.Error()); m != nil {
			pmsg = m[2]
		}
		if pmsg == msg {
			line = k
			break
		}
	}
	return &Error{File: name, Line: line, Msg: msg}
}

// Hosts lists the hosts of the file, in file order.
func (e *Expectations) Hosts() []string {
	if e == nil {
		return nil
	}
	return append([]string(nil), e.order...)
}

// Entries lists a host's entries, in file order.
func (e *Expectations) Entries(host string) []Entry {
	if e == nil || e.hosts[host] == nil {
		return nil
	}
	return append([]Entry(nil), e.hosts[host].entries...)
}

// Lookup finds the entry for check id on host.
func (e *Expectations) Lookup(host, id string) (Entry, bool) {
	if e == nil || e.hosts[host] == nil {
		return Entry{}, false
	}
	hl := e.hosts[host]
	i, ok := hl.byID[id]
	if !ok {
		return Entry{}, false
	}
	return hl.entries[i], true
}

// Mark sets c.Expect from the entry for c on host, or clears it. It is for
// live output (the console prints XFAIL as each case finishes); Apply does
// the same for a whole run. A nil *Expectations leaves c alone.
func (e *Expectations) Mark(host string, c *report.Case) {
	if e == nil {
		return
	}
	c.Expect = nil
	if ent, ok := e.Lookup(host, c.ID); ok {
		x := ent.Expectation()
		c.Expect = &x
	}
}

// Apply marks every case of run with its expectations entry (report.Case.Expect,
// which every report writer renders), records the entries that matched no
// case of a host that ran (HostRun.Absent) and the file's name
// (Run.Expectations). It replaces any marks the run had. A nil *Expectations
// leaves the run as it is, so a run read back from JSON keeps the expectations
// it was written with.
func Apply(run *report.Run, e *Expectations) {
	if e == nil {
		return
	}
	run.Expectations = e.File
	for i := range run.Hosts {
		h := &run.Hosts[i]
		// Cases are copied before marking: the caller's slices may be shared.
		h.Cases = append([]report.Case(nil), h.Cases...)
		seen := map[string]bool{}
		for j := range h.Cases {
			e.Mark(h.Host, &h.Cases[j])
			seen[h.Cases[j].ID] = true
		}
		h.Absent = nil
		for _, ent := range e.Entries(h.Host) {
			if !seen[ent.ID] {
				h.Absent = append(h.Absent, ent.Expectation())
			}
		}
	}
}
