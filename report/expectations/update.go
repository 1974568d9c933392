package expectations

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// header starts a file Update writes from scratch.
const header = `mcpconform expectations: for each host, the checks known to fail.
An entry is a check id (expected to fail: FAIL, TIMEOUT or ERROR), or a
mapping {id, reason, allow: [statuses]} for a known flaky check.
Written by "mcpconform run --update-expectations"; see docs/ci.md.`

// Update returns the expectations file that accepts run as it is: prev (the
// file as it was, nil for none) with the section of every host in run
// rewritten, and every other host's section left as it was. For a host
// that ran, an entry is:
//
//   - kept when its check failed with a status it accepts, was skipped or
//     not run, or is absent (not selected, or no longer in the suite);
//   - kept with the status added to its allow list when its check failed
//     with a status the list lacked;
//   - removed when its check passed and the entry does not allow PASS (a
//     stale entry);
//   - added for every failure no entry covered: the check id with the status
//     and message as a comment, or, when the case carried an entry from
//     another file (report.Case.Expect), that entry's reason and allow list.
//
// Entries, comments and order of what is kept are preserved; new entries
// go at the end of their host's list. The YAML is re-indented by two.
func Update(prev *Expectations, run report.Run) ([]byte, error) {
	var doc, root *yaml.Node
	clones := map[*yaml.Node]*yaml.Node{}
	if prev != nil && prev.doc != nil && len(prev.doc.Content) > 0 && resolve(prev.doc.Content[0]).Kind == yaml.MappingNode {
		doc = clone(prev.doc, clones)
		root = resolve(doc.Content[0])
	} else {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		doc = &yaml.Node{Kind: yaml.DocumentNode, HeadComment: commentBlock(header), Content: []*yaml.Node{root}}
		if prev != nil && prev.doc != nil && prev.doc.HeadComment != "" {
			doc.HeadComment = prev.doc.HeadComment
		}
	}

	// Group the cases by host, keeping the order hosts first appear in.
	var hosts []string
	cases := map[string][]report.Case{}
	for _, h := range run.Hosts {
		if _, ok := cases[h.Host]; !ok {
			hosts = append(hosts, h.Host)
		}
		cases[h.Host] = append(cases[h.Host], h.Cases...)
	}

	for _, host := range hosts {
		var hl *hostList
		if prev != nil {
			hl = prev.hosts[host]
		}
		items := updatedItems(hl, cases[host], clones)
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
		if hl == nil {
			root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: host}, seq)
			continue
		}
		if hl.seq != nil {
			s := clones[hl.seq]
			s.Content = items
			if len(items) > 0 {
				s.Style &^= yaml.FlowStyle
			}
			continue
		}
		// The host's value was null: put the list in its place.
		key := clones[hl.key]
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i] == key {
				root.Content[i+1] = seq
			}
		}
	}

	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	// What is written must read back: a bug here would otherwise surface
	// only on the next run.
	name := "updated expectations"
	if prev != nil && prev.File != "" {
		name = prev.File
	}
	if _, err := Parse(name, b.Bytes()); err != nil {
		return nil, fmt.Errorf("the updated expectations file does not parse (a bug): %w", err)
	}
	return b.Bytes(), nil
}

func updatedItems(hl *hostList, cases []report.Case, clones map[*yaml.Node]*yaml.Node) []*yaml.Node {
	byID := map[string]report.Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	items := []*yaml.Node{}
	covered := map[string]bool{}
	if hl != nil {
		for _, ent := range hl.entries {
			covered[ent.ID] = true
			node := clones[ent.node]
			c, ran := byID[ent.ID]
			switch {
			// A BLOCKED check did not reach what the entry is about: the
			// entry is neither met nor stale, and kept, as for a SKIP.
			case !ran, c.Status == protocol.StatusSkip, c.Status == protocol.StatusNotRun, c.Status == protocol.StatusBlocked:
			case c.Status == protocol.StatusOptional:
				continue // a MAY not implemented never needs an entry: drop it
			case c.Status == protocol.StatusPass:
				if !ent.Expectation().Allows(c.Status) {
					continue // stale: drop it
				}
			default:
				if !ent.Expectation().Allows(c.Status) {
					addAllowed(resolve(node), c.Status)
				}
			}
			items = append(items, node)
		}
	}
	for _, c := range cases {
		if covered[c.ID] || !failing(c.Status) {
			continue
		}
		covered[c.ID] = true
		items = append(items, newItem(c))
	}
	return items
}

func failing(s protocol.Status) bool {
	switch s {
	case protocol.StatusPass, protocol.StatusSkip, protocol.StatusNotRun, protocol.StatusOptional, protocol.StatusBlocked:
		return false
	}
	return true
}

// addAllowed appends s to the allow list of a mapping entry.
func addAllowed(entry *yaml.Node, s protocol.Status) {
	if entry.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(entry.Content); i += 2 {
		if resolve(entry.Content[i]).Value == "allow" {
			list := resolve(entry.Content[i+1])
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(s)})
			return
		}
	}
}

// newItem is the entry for a failure no entry of this file covered.
func newItem(c report.Case) *yaml.Node {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	note := string(c.Status)
	if m := commentText(c.Message, 100); m != "" {
		note += ": " + m
	}
	x := c.Expect
	if x == nil || (x.Reason == "" && len(x.Allow) == 0) {
		n := str(c.ID)
		n.LineComment = "# " + commentText(note, 120)
		return n
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str("id"), str(c.ID)}}
	m.Content[1].LineComment = "# " + commentText(note, 120)
	if x.Reason != "" {
		m.Content = append(m.Content, str("reason"), str(x.Reason))
	}
	if len(x.Allow) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, s := range x.Allow {
			list.Content = append(list.Content, str(string(s)))
		}
		if !x.Allows(c.Status) {
			list.Content = append(list.Content, str(string(c.Status)))
		}
		m.Content = append(m.Content, str("allow"), list)
	}
	return m
}

// commentText folds s onto one printable line of at most n runes.
func commentText(s string, n int) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) })
	s = strings.Join(f, " ")
	if r := []rune(s); len(r) > n {
		s = strings.TrimSpace(string(r[:n])) + "…"
	}
	return s
}

func commentBlock(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = "# " + l
	}
	return strings.Join(lines, "\n")
}

// clone deep-copies a node tree, recording each original's copy.
func clone(n *yaml.Node, m map[*yaml.Node]*yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if c, ok := m[n]; ok {
		return c
	}
	c := *n
	m[n] = &c
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = clone(k, m)
	}
	c.Alias = clone(n.Alias, m)
	return &c
}
