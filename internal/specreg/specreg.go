// Package specreg is the requirement register: every normative sentence of
// the MCP Apps spec (ext-apps apps.mdx, stable edition and newest draft)
// whose subject is the host, its sandbox proxy or its agent, with a stable
// id, derived from the spec text by Derive and kept in register.json.
//
// The register is data, not typed by hand: `go run
// ./internal/specreg/cmd/specreg` rewrites register.json from the spec
// files, and a test re-derives it and fails on drift whenever
// MCPCONFORM_SPEC_DIR names a directory holding them. The spec files stay
// out of the repository; the register records the upstream commit and the
// SHA-256 of each.
//
// Checks name the requirement ids they judge (TestDef.requirements); the
// register gives, for the edition a run judges against, the keyword and the
// sentence each check reports (Register.Judge, Recite), and the coverage
// matrix (Matrix, Coverage) pairs every requirement with its checks or with
// the reason it is not judged (Unjudged). External holds the few JSON-RPC
// and MCP rules checks judge besides. docs/coverage.md describes it all.
package specreg

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpconform/mcpconform/protocol"
)

// Keyword is the RFC 2119 (BCP 14) keyword of a sentence, as written.
type Keyword string

// Keywords lists every keyword, the longer forms first so that a scan finds
// "MUST NOT" before "MUST".
var Keywords = []Keyword{"MUST NOT", "SHALL NOT", "SHOULD NOT", "NOT RECOMMENDED", "MUST", "SHALL", "REQUIRED", "SHOULD", "RECOMMENDED", "MAY", "OPTIONAL"}

// Clause is the clause a keyword states: REQUIRED and SHALL are MUST,
// RECOMMENDED is SHOULD, OPTIONAL is MAY (RFC 2119 §1-5).
func (k Keyword) Clause() protocol.Clause {
	switch k {
	case "MUST", "SHALL", "REQUIRED":
		return protocol.ClauseMust
	case "MUST NOT", "SHALL NOT":
		return protocol.ClauseMustNot
	case "SHOULD", "RECOMMENDED":
		return protocol.ClauseShould
	case "SHOULD NOT", "NOT RECOMMENDED":
		return protocol.ClauseShouldNot
	case "MAY", "OPTIONAL":
		return protocol.ClauseMay
	}
	return ""
}

// Subject is who a sentence binds.
type Subject string

const (
	SubjectHost    Subject = "host"
	SubjectSandbox Subject = "sandbox"
	SubjectAgent   Subject = "agent"
	SubjectView    Subject = "view"
	SubjectServer  Subject = "server"
)

// HostSide reports whether the subject is the host, its sandbox proxy or
// its model/agent: the sentences the register keeps.
func (s Subject) HostSide() bool {
	return s == SubjectHost || s == SubjectSandbox || s == SubjectAgent
}

// Sentence is one normative sentence (one keyword of it: a sentence with two
// keywords is two entries with the same quote).
type Sentence struct {
	// ID is set for host-side sentences: stable and readable, the same in
	// every edition whose text says the same thing (see deriveID).
	ID      string           `json:"id,omitempty"`
	Edition protocol.Edition `json:"edition"`
	// Section is the heading path, then the method the paragraph
	// describes when there is one ("... > ui/resource-teardown").
	Section string          `json:"section"`
	Line    int             `json:"line"`
	Keyword Keyword         `json:"keyword"`
	Clause  protocol.Clause `json:"clause"`
	Subject Subject         `json:"subject"`
	// Quote is the sentence as the spec writes it, markdown markup
	// removed; a list item that completes a lead-in ("The Sandbox MUST
	// load ... with CSP settings that:") carries the lead-in first.
	Quote string `json:"quote"`
	// Attribution says how the subject was found (see attribute).
	Attribution string `json:"attribution"`
	// Unsure marks attributions a reader should review: the subject came
	// from the section, a pronoun or a noun that only modifies the head.
	Unsure bool `json:"unsure,omitempty"`
}

// Source is one edition's spec file.
type Source struct {
	Edition protocol.Edition `json:"edition"`
	Repo    string           `json:"repo"`
	Path    string           `json:"path"`
	Commit  string           `json:"commit"`
	SHA256  string           `json:"sha256"`
	Lines   int              `json:"lines"`
}

// Register is register.json.
type Register struct {
	Generator string   `json:"generator"`
	Sources   []Source `json:"sources"`
	// Requirements are the host-side sentences, by edition then line.
	Requirements []Sentence `json:"requirements"`
	// Excluded are the other normative sentences (View, server), kept so
	// the attribution can be reviewed.
	Excluded []Sentence `json:"excluded"`
}

//go:embed register.json
var registerJSON []byte

var (
	loadOnce sync.Once
	loaded   *Register
	loadErr  error
)

// Load returns the committed register.
func Load() (*Register, error) {
	loadOnce.Do(func() {
		var r Register
		if err := json.Unmarshal(registerJSON, &r); err != nil {
			loadErr = fmt.Errorf("specreg: register.json: %w", err)
			return
		}
		loaded = &r
	})
	return loaded, loadErr
}

// JSON is register.json as committed (the suite bundles it).
func JSON() []byte { return registerJSON }

// Find returns the requirement id's sentence in edition ed.
func (r *Register) Find(id string, ed protocol.Edition) (Sentence, bool) {
	for _, s := range r.Requirements {
		if s.ID == id && s.Edition == ed {
			return s, true
		}
	}
	return Sentence{}, false
}

// Known reports whether id names a requirement of any edition.
func (r *Register) Known(id string) bool {
	return slices.ContainsFunc(r.Requirements, func(s Sentence) bool { return s.ID == id })
}

// IDs lists the distinct requirement ids, in register order.
func (r *Register) IDs() []string {
	var ids []string
	seen := map[string]bool{}
	for _, s := range r.Requirements {
		if !seen[s.ID] {
			seen[s.ID] = true
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// Editions lists the editions in which id has a sentence, in
// protocol.Editions order.
func (r *Register) Editions(id string) []protocol.Edition {
	var eds []protocol.Edition
	for _, ed := range protocol.Editions {
		if _, ok := r.Find(id, ed); ok {
			eds = append(eds, ed)
		}
	}
	return eds
}

// Source returns the source of edition ed.
func (r *Register) Source(ed protocol.Edition) (Source, bool) {
	for _, s := range r.Sources {
		if s.Edition == ed {
			return s, true
		}
	}
	return Source{}, false
}
