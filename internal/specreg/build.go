package specreg

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Generator is how register.json is made, recorded in it.
const Generator = "go run ./internal/specreg/cmd/specreg -stable SPEC/2026-01-26/apps.mdx -draft SPEC/draft/apps.mdx"

// Input is one edition's spec file for Build.
type Input struct {
	Edition protocol.Edition
	Commit  string
	Text    string
}

// Repo and the path of each edition's apps.mdx in it.
const Repo = "modelcontextprotocol/ext-apps"

// SpecPath is the path of edition ed's apps.mdx in Repo.
func SpecPath(ed protocol.Edition) string {
	return "specification/" + string(ed) + "/apps.mdx"
}

// overrides renames derived ids that would collide within an edition: two
// sentences whose first content words agree. The key is the derived id and
// the last part of the section the sentence sits in. Nothing else is named
// by hand.
var overrides = map[string]string{
	// The draft repeats the resource-teardown SHOULD for a teardown the View
	// asked for (ui/notifications/request-teardown).
	"host-wait-response-before-tearing@ui/notifications/request-teardown": "host-wait-response-requested-teardown",
}

// Build derives the register from the editions' spec files.
func Build(inputs []Input) (*Register, error) { return build(inputs, overrides) }

func build(inputs []Input, overrides map[string]string) (*Register, error) {
	r := &Register{Generator: Generator}
	used := map[string]bool{}
	var problems []string
	for _, in := range inputs {
		sum := sha256.Sum256([]byte(in.Text))
		r.Sources = append(r.Sources, Source{
			Edition: in.Edition, Repo: Repo, Path: SpecPath(in.Edition), Commit: in.Commit,
			SHA256: hex.EncodeToString(sum[:]), Lines: strings.Count(in.Text, "\n"),
		})
		seen := map[string]Sentence{}
		for _, s := range Derive(in.Edition, in.Text) {
			if !s.Subject.HostSide() {
				r.Excluded = append(r.Excluded, s)
				continue
			}
			key := s.ID + "@" + lastPart(s.Section)
			if id, ok := overrides[key]; ok {
				s.ID = id
				used[key] = true
			}
			if prev, dup := seen[s.ID]; dup {
				problems = append(problems, fmt.Sprintf("%s: id %s of L%d (%q) is also L%d's (%q): add an override keyed %q",
					in.Edition, s.ID, s.Line, s.Quote, prev.Line, prev.Quote, s.ID+"@"+lastPart(s.Section)))
				continue
			}
			seen[s.ID] = s
			r.Requirements = append(r.Requirements, s)
		}
	}
	for key := range overrides {
		if !used[key] {
			problems = append(problems, "override "+key+" matches no sentence: remove it")
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return r, fmt.Errorf("specreg: %s", strings.Join(problems, "\n"))
	}
	return r, nil
}

func lastPart(section string) string {
	if i := strings.LastIndex(section, " > "); i >= 0 {
		return section[i+len(" > "):]
	}
	return section
}

// sortSentences orders by line, then by the keyword's place in the quote.
func sortSentences(ss []Sentence) {
	slices.SortStableFunc(ss, func(a, b Sentence) int { return cmp.Compare(a.Line, b.Line) })
}
