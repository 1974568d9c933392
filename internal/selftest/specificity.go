package selftest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// The specificity pass is the mirror image of the mutation pass: under each
// legal variation of the reference host (reference.Variations), and a few
// combinations, the whole catalogue runs and no check may end FAIL, ERROR or
// TIMEOUT. A red check there is a false failure: the check assumes more than
// the spec says.

// Combinations are variation sets run together besides each variation
// alone: hosts seen in the field differ from ours in several ways at once.
var Combinations = [][]string{
	{"context-minimal", "no-optional-capabilities", "no-agent"},
	{"context-empty", "display-modes-absent", "tool-input-partial-none", "request-teardown-ignored"},
	{"csp-meta", "csp-stricter", "view-same-origin", "no-permissions-allow"},
	{"payload-undefined-keys", "payload-extra-keys", "payload-meta-on-notifications", "errors-32000", "open-link-refused", "download-filename-underscored"},
	{"theme-dark-initially", "locale-non-english", "context-changed-full", "container-fixed-height", "tool-input-partial-many", "rerender-once", "message-consent", "server-initialize-probes"},
	// A host built on an SDK's defaults and its own policies, as the audits
	// of 2026-12-01 found real ones (mcp-ui's AppBridge 1.x, ChatGPT).
	{"errors-internal-code", "display-mode-unknown-current", "resources-list-unproxied", "no-sandbox-capability", "context-open-fields", "model-tool-names-namespaced", "permissions-granted-unrequested", "download-refused", "content-images-only", "view-sandbox-inherited"},
}

// VariationRun is the outcome under one variation set.
type VariationRun struct {
	Variations []string
	Cases      []report.Case
	// Problems: checks that went red (false failures) and variations that
	// did not show in what the host stated (hostContext, hostCapabilities).
	Problems []string
	Err      error
}

// Name is the variation set joined with "+".
func (r VariationRun) Name() string { return strings.Join(r.Variations, "+") }

// Tally counts the run's checks by status, e.g. "60 PASS, 6 SKIP".
func (r VariationRun) Tally() string {
	n := map[protocol.Status]int{}
	var order []protocol.Status
	for _, c := range r.Cases {
		if n[c.Status] == 0 {
			order = append(order, c.Status)
		}
		n[c.Status]++
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
	}
	return strings.Join(parts, ", ")
}

// Specificity is the whole specificity pass.
type Specificity struct {
	Runs      []VariationRun
	FalseFail []string // "check under variation: status message"
}

// OK reports no false failure, no harness error and every variation seen.
func (s Specificity) OK() bool {
	for _, r := range s.Runs {
		if len(r.Problems) > 0 || r.Err != nil {
			return false
		}
	}
	return len(s.FalseFail) == 0
}

// SpecificityOptions configure RunSpecificity; Env, Parallel and Run are
// Options'.
type SpecificityOptions struct {
	Options
	// Sets overrides the variation sets (default: each variation alone,
	// then Combinations).
	Sets [][]string
	// Catalogue is the number of checks each run must report (default:
	// the suite's catalogue, suite.IDs): a run that ran fewer proves less.
	Catalogue int
	// Progress is called as each variation run finishes.
	Progress func(r VariationRun)
}

// VariationSets is every variation alone, then Combinations.
func VariationSets() [][]string {
	var sets [][]string
	for _, v := range reference.Variations {
		sets = append(sets, []string{v.Name})
	}
	return append(sets, Combinations...)
}

// SpeedOnly are the variations that change only how fast the host is
// (slow-host): under them alone every check must end as on the plain
// reference host, PASS, not merely non-red. A SKIP or OPTIONAL there is a
// verdict that depends on the host's speed (docs/audit-timing.md).
var SpeedOnly = map[string]bool{"slow-host": true}

// speedOnly reports whether every variation of vs changes only speed.
func speedOnly(vs []string) bool {
	for _, v := range vs {
		if !SpeedOnly[v] {
			return false
		}
	}
	return len(vs) > 0
}

// isFalseFailure: red, or BLOCKED, under a legal variation. A BLOCKED check
// claims that a behaviour another check judges is missing; a legal host
// misses none, so the precondition misread it.
func isFalseFailure(s protocol.Status) bool {
	return s == protocol.StatusFail || s == protocol.StatusError || s == protocol.StatusTimeout || s == protocol.StatusBlocked
}

// RunSpecificity runs the whole catalogue under each variation set.
func RunSpecificity(ctx context.Context, o SpecificityOptions) (Specificity, error) {
	if o.Parallel <= 0 {
		o.Parallel = 2
	}
	if o.Run == nil {
		o.Run = runner.Run
	}
	sets := o.Sets
	if sets == nil {
		sets = VariationSets()
	}
	if o.Catalogue == 0 {
		ids, err := suite.IDs()
		if err != nil {
			return Specificity{}, err
		}
		o.Catalogue = len(ids)
	}
	for _, set := range sets {
		if _, err := reference.ParseVariations(set); err != nil {
			return Specificity{}, err
		}
	}
	runs := runAll(len(sets), o.Parallel, func(i int) VariationRun {
		set := sets[i]
		vs, _ := reference.ParseVariations(set)
		r := VariationRun{Variations: vs.List()}
		hr, err := o.Run(ctx, reference.NewWith(nil, vs), runner.Options{Env: o.Env})
		r.Cases, r.Err = hr.Cases, err
		if err == nil && len(hr.Cases) != o.Catalogue {
			r.Problems = append(r.Problems, fmt.Sprintf("ran %d checks, the catalogue has %d", len(hr.Cases), o.Catalogue))
		}
		for _, c := range hr.Cases {
			if isFalseFailure(c.Status) {
				r.Problems = append(r.Problems, fmt.Sprintf("%s went %s under a legal variation (false failure): %s", c.ID, c.Status, c.Message))
			} else if c.Status != protocol.StatusPass && speedOnly(r.Variations) {
				r.Problems = append(r.Problems, fmt.Sprintf("%s went %s on a host that is only slower (PASS on the plain reference host): a verdict that depends on the host's speed: %s", c.ID, c.Status, c.Message))
			}
		}
		if err == nil {
			r.Problems = append(r.Problems, tookEffect(vs, hr)...)
		}
		return r
	}, o.Progress)
	var s Specificity
	s.Runs = runs
	for _, r := range runs {
		for _, c := range r.Cases {
			if isFalseFailure(c.Status) {
				s.FalseFail = append(s.FalseFail, fmt.Sprintf("%s under %s: %s %s", c.ID, r.Name(), c.Status, c.Message))
			}
		}
	}
	sort.Strings(s.FalseFail)
	return s, nil
}

// capabilityOf is the hostCapabilities member each single-capability
// variation takes away.
var capabilityOf = map[string]string{
	"no-capability-message":              "message",
	"no-capability-update-model-context": "updateModelContext",
	"no-capability-open-links":           "openLinks",
	"no-capability-download-file":        "downloadFile",
	"no-capability-logging":              "logging",
	"no-capability-sampling":             "sampling",
	"no-capability-server-resources":     "serverResources",
}

// tookEffect checks, from the hostCapabilities and hostContext the run
// recorded, that the variations which change them did: a variation that
// silently did nothing would prove nothing. (The others are proven by the
// reference package's variation tests.)
func tookEffect(vs reference.VariationSet, hr report.HostRun) []string {
	var caps, ctx map[string]json.RawMessage
	json.Unmarshal(hr.Capabilities, &caps)
	json.Unmarshal(hr.Context, &ctx)
	var problems []string
	if caps == nil {
		return []string{"the run recorded no hostCapabilities"}
	}
	for v, c := range capabilityOf {
		_, has := caps[c]
		if (vs[v] || vs["no-optional-capabilities"]) && has {
			problems = append(problems, fmt.Sprintf("variation %s: hostCapabilities still has %s", v, c))
		}
	}
	switch {
	case vs["context-empty"]:
		if len(ctx) != 0 {
			problems = append(problems, fmt.Sprintf("variation context-empty: hostContext has %d fields", len(ctx)))
		}
	case vs["context-minimal"]:
		if _, ok := ctx["theme"]; !ok || len(ctx) != 1 {
			problems = append(problems, fmt.Sprintf("variation context-minimal: hostContext is %s, want only theme", hr.Context))
		}
	default:
		modes := string(ctx["availableDisplayModes"])
		if vs["display-modes-absent"] && modes != "" {
			problems = append(problems, "variation display-modes-absent: hostContext.availableDisplayModes is "+modes)
		}
		if vs["display-modes-inline-only"] && modes != `["inline"]` {
			problems = append(problems, "variation display-modes-inline-only: hostContext.availableDisplayModes is "+modes)
		}
		if _, ok := ctx["x-reference-extra"]; vs["payload-extra-keys"] && !ok {
			problems = append(problems, "variation payload-extra-keys: no extra hostContext key")
		}
	}
	return problems
}
