package specreg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// ReasonKind says why a requirement has no check judging it.
type ReasonKind string

const (
	// ReasonPermission: a MAY that grants latitude and forbids nothing, so
	// no observation can fail it (a MAY the suite can see in use has an
	// OPTIONAL-capable check instead).
	ReasonPermission ReasonKind = "permission"
	// ReasonImplicit: every check depends on it (message forwarding), so
	// a breach shows as other checks' failures; no check of its own.
	ReasonImplicit ReasonKind = "implicit"
	// ReasonVantage: not observable from the View, the fixture server or
	// the host page; Why names the vantage that would be needed.
	ReasonVantage ReasonKind = "vantage"
	// ReasonLLM: needs the host's model to act (call an app tool, read a
	// context) in a way a run cannot cause without an LLM.
	ReasonLLM ReasonKind = "llm"
	// ReasonHuman: judged by a person (a warning, a confirmation dialog, a
	// document), a human-only SHOULD.
	ReasonHuman ReasonKind = "human"
	// ReasonNotYetWritten: observable, the check is missing (issue #24
	// item 4 adds them).
	ReasonNotYetWritten ReasonKind = "not-yet-written"
)

// Testable reports whether a requirement of this kind could be judged by a
// check from the suite's vantages.
func (k ReasonKind) Testable() bool { return k == ReasonNotYetWritten }

// Reason is why a requirement is not judged.
type Reason struct {
	Kind ReasonKind `json:"kind"`
	Why  string     `json:"why"`
}

func permission(why string) Reason { return Reason{ReasonPermission, why} }
func vantage(why string) Reason    { return Reason{ReasonVantage, why} }
func human(why string) Reason      { return Reason{ReasonHuman, why} }
func llm(why string) Reason        { return Reason{ReasonLLM, why} }
func missing(why string) Reason    { return Reason{ReasonNotYetWritten, why} }

const (
	agentToolList = "the agent's vantage: the tool list and tool calls as the host's model sees them"
	hostInternals = "the host's own logs or storage (host internals)"
)

// Unjudged gives, for each requirement id no check names, why. A test
// fails when an id here gains a check, names no requirement, or when a
// requirement has neither.
var Unjudged = map[string]Reason{
	"host-audit-trail":                                   vantage(hostInternals + "; csp/audit-log observes what the host page shows (INFO)"),
	"host-prefetch-cache-ui-resource":                    permission("caching is invisible when correct"),
	"sandbox-forward-messages-sent-host":                 {ReasonImplicit, "every in-view check talks to the host through the proxy; a proxy that drops messages fails them"},
	"host-decide-block-some-messages":                    permission("blocking is allowed; the checks accept a refusal where the spec lets the host refuse"),
	"host-decline-display-mode-requests":                 permission("display/undeclared-mode-refused accepts a decline"),
	"host-request-user-consent":                          permission("consent is the host's choice"),
	"host-overwrite-previous-model-context":              permission("what the model keeps is the host's choice"),
	"host-defer-sending-context-model":                   permission("when the model sees the context is the host's choice"),
	"host-dedupe-identical-update-model-context-calls":   permission("deduplication is invisible when correct"),
	"host-display-context-updates-user":                  permission("showing updates is the host's choice"),
	"host-send-tool-input-partial-zero-more":             permission("zero partial notifications conform"),
	"host-parse-agent-partial-json":                      permission("a way to produce partial input, invisible as such"),
	"host-send-recovered-arguments-become":               permission("zero partial notifications conform"),
	"host-specify-reason":                                permission("the reason is optional"),
	"host-warn-users-ui-requires":                        human("a warning shown to the user"),
	"host-implement-global-domain-allowlists-blocklists": permission("a policy the host may add"),
	"host-reject-download-based-security":                permission("downloads/download-file accepts a refusal"),
	"host-defer-ignore-teardown-request":                 permission("lifecycle/request-teardown accepts a host that ignores the request"),
	"host-display-tool-source-agent":                     vantage(agentToolList + ": each tool's label or description there (readModelToolList reads names only)"),
	"host-visually-distinguish-app-tools":                human("how the UI shows app tools"),
	"host-show-app-name-version":                         human("what a confirmation dialog says"),
	"host-require-explicit-user-approval":                human("a confirmation dialog"),
	"host-consider-auto-approving-tools-readonlyhint":    human("an approval policy"),
	"host-implement-per-app-permission-settings":         human("a settings screen"),
	"host-recommend-enforce-tool-name":                   human("documentation or a naming policy"),
	"host-prevent-apps-registering-tool":                 vantage(agentToolList + ": which tool a name the app shares with a server tool calls (readModelToolList reads names only, and an app tool that replaced the server's reads like one the host refused)"),
	"host-document-namespace-conventions-app":            human("documentation"),
	"host-enforce-execution-timeouts-tool":               llm("the model must call an app tool that never answers"),
	"host-limit-tool-result-sizes":                       llm("the model must call an app tool that answers 10 MB"),
	"host-log-app-tool-registrations":                    vantage(hostInternals),
	"host-log-app-tool-calls":                            vantage(hostInternals),
	"host-provide-audit-interface-users":                 human("an audit screen"),
	"host-validate-tool-results-match":                   llm("the model must call an app tool whose result breaks its schema"),
	"host-sanitize-result-content-before":                llm("the model must call an app tool and show its result"),
	"host-reject-results-appear-malicious":               llm("the model must call an app tool with a malicious result; what appears malicious is a judgement"),
	"host-implement-different-permission-levels":         permission("a policy the host may add"),
}

// Check is what the matrix needs of a check.
type Check struct {
	ID           string           `json:"id"`
	Clause       protocol.Clause  `json:"clause"`
	Edition      protocol.Edition `json:"edition"`
	Requirements []string         `json:"requirements"`
}

// Judges reports whether the check gives a verdict (an INFO check only
// observes).
func (c Check) Judges() bool { return c.Clause != protocol.ClauseInfo }

// Row is one requirement of one edition in the coverage matrix.
type Row struct {
	Sentence
	// Checks judge it; Observed are INFO checks that only look.
	Checks   []string `json:"checks"`
	Observed []string `json:"observed,omitempty"`
	Reason   *Reason  `json:"reason,omitempty"`
}

// Judged reports whether a check judges the row's requirement.
func (r Row) Judged() bool { return len(r.Checks) > 0 }

// Matrix pairs every requirement of every edition with its checks or its
// reason, in register order.
func Matrix(reg *Register, checks []Check) []Row {
	var rows []Row
	for _, s := range reg.Requirements {
		row := Row{Sentence: s, Checks: []string{}}
		for _, c := range checks {
			if !slices.Contains(c.Requirements, s.ID) {
				continue
			}
			if c.Judges() {
				row.Checks = append(row.Checks, c.ID)
			} else {
				row.Observed = append(row.Observed, c.ID)
			}
		}
		if !row.Judged() {
			if r, ok := Unjudged[s.ID]; ok {
				row.Reason = &r
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// Problems lists what breaks traceability: a check naming an unknown id, a
// requirement with neither a check nor a reason, a reason for a judged or
// unknown requirement.
func Problems(reg *Register, checks []Check) []string {
	var out []string
	judged := map[string]bool{}
	for _, c := range checks {
		for _, id := range c.Requirements {
			if _, ext := FindExternal(id); !reg.Known(id) && !ext {
				out = append(out, fmt.Sprintf("%s names requirement %q, which is neither in register.json nor in specreg.External", c.ID, id))
			}
			if c.Judges() {
				judged[id] = true
			}
		}
	}
	for _, id := range reg.IDs() {
		_, reason := Unjudged[id]
		switch {
		case judged[id] && reason:
			out = append(out, fmt.Sprintf("%s is judged by a check and also listed in specreg.Unjudged: remove it there", id))
		case !judged[id] && !reason:
			out = append(out, fmt.Sprintf("%s (%s) has no check and no reason in specreg.Unjudged", id, strings.Join(editionNames(reg.Editions(id)), ", ")))
		}
	}
	for id := range Unjudged {
		if !reg.Known(id) {
			out = append(out, fmt.Sprintf("specreg.Unjudged lists %q, which is no requirement", id))
		}
	}
	slices.Sort(out)
	return out
}

func editionNames(eds []protocol.Edition) []string {
	var out []string
	for _, e := range eds {
		out = append(out, string(e))
	}
	return out
}

// Figures are one edition's coverage counts for one group of clauses.
type Figures struct {
	Total    int                `json:"total"`
	Judged   int                `json:"judged"`
	ByReason map[ReasonKind]int `json:"byReason"`
}

// Testable is the requirements a check could judge: judged or not yet
// written.
func (f Figures) Testable() int { return f.Judged + f.ByReason[ReasonNotYetWritten] }

// ClauseGroup names the clause groups coverage is counted by.
type ClauseGroup string

const (
	GroupMust   ClauseGroup = "MUST/MUST NOT"
	GroupShould ClauseGroup = "SHOULD/SHOULD NOT"
	GroupMay    ClauseGroup = "MAY"
)

// ClauseGroups in report order.
var ClauseGroups = []ClauseGroup{GroupMust, GroupShould, GroupMay}

// GroupOf is the clause group clause c is counted in.
func GroupOf(c protocol.Clause) ClauseGroup {
	switch c {
	case protocol.ClauseMust, protocol.ClauseMustNot:
		return GroupMust
	case protocol.ClauseShould, protocol.ClauseShouldNot:
		return GroupShould
	}
	return GroupMay
}

// Coverage counts the matrix per edition and clause group.
func Coverage(rows []Row) map[protocol.Edition]map[ClauseGroup]*Figures {
	out := map[protocol.Edition]map[ClauseGroup]*Figures{}
	for _, r := range rows {
		if out[r.Edition] == nil {
			out[r.Edition] = map[ClauseGroup]*Figures{}
			for _, g := range ClauseGroups {
				out[r.Edition][g] = &Figures{ByReason: map[ReasonKind]int{}}
			}
		}
		f := out[r.Edition][GroupOf(r.Clause)]
		f.Total++
		switch {
		case r.Judged():
			f.Judged++
		case r.Reason != nil:
			f.ByReason[r.Reason.Kind]++
		}
	}
	return out
}
