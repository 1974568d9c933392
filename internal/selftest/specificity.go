package selftest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// NeutralGroups are the variations under which, each alone, every check
// PASSes (the full pass, each variation alone, demands it of every
// variation listed here), packed so that no two in a group set the same
// host knob (one partial-input count, one error code, one View sandbox,
// one allow attribute, one download policy) and none changes how the
// suite reaches what it tests (no agent, no tool list, a re-render, a
// slower host, a dialog before every tool call stay alone: in a group the
// approval dialogs once kept the driver's tool picker from opening a
// probe). The area scope (CI) runs each group as one
// host instead of its members one by one, and demands PASS of every
// check there as well: a member that starts to change a verdict shows as
// a non-PASS check of its group, and the message says which variations to
// run alone to find it. What a group cannot show is a member's false
// failure hidden by another member's effect on the same check; the full
// pass, each variation alone, can.
var NeutralGroups = [][]string{
	{"context-changed-full", "theme-dark-initially", "locale-non-english", "payload-undefined-keys", "payload-extra-keys", "payload-meta-on-notifications", "tool-input-partial-none", "errors-32000", "message-consent", "permissions-granted-unrequested"},
	{"csp-meta", "csp-stricter", "view-same-origin", "tool-input-partial-once", "errors-internal-code", "display-mode-unknown-current", "server-initialize-probes", "resources-list-unproxied", "download-filename-underscored"},
	{"view-sandbox-inherited", "tool-input-partial-many", "context-open-fields", "model-tool-names-namespaced"},
}

// VariationAreas are, for a variation that changes one part of what the
// host does, the areas (the part of a check's id before "/") where it may
// change a verdict from PASS; every other check PASSes under it alone. The
// area scope (CI) runs such a variation over its areas only, as the
// mutation pass runs a defect over its own; the full pass runs the whole
// catalogue under it and holds it to the list: a check outside its areas
// that does not PASS there is a problem naming the area to add. A
// variation not listed here changes how the suite reaches what it tests (no
// tool list, a re-render, a slower host, an approval before each tool
// call, other wire names) and runs the whole
// catalogue in both scopes, as the neutral groups do.
var VariationAreas = map[string][]string{
	"context-minimal":                    {"context", "display"},
	"context-empty":                      {"context", "display"},
	"container-fixed-height":             {"sizing"},
	"container-fixed-width":              {"sizing"},
	"no-optional-capabilities":           {"capabilities", "downloads", "links", "messages", "model-context", "sampling", "tools"},
	"no-capability-message":              {"messages", "model-context", "tools"},
	"no-capability-update-model-context": {"model-context"},
	"no-capability-open-links":           {"links"},
	"no-capability-download-file":        {"downloads"},
	"no-capability-logging":              {"capabilities"},
	"no-capability-sampling":             {"sampling"},
	"no-capability-server-resources":     {"tools"},
	"no-permissions-allow":               {"security"},
	"no-context-changed-on-theme":        {"context"},
	"display-modes-inline-only":          {"display"},
	"display-needs-gesture":              {"display"},
	"display-modes-absent":               {"context", "display"},
	"open-link-refused":                  {"links"},
	"request-teardown-ignored":           {"lifecycle"},
	"content-images-only":                {"messages", "model-context", "tools"},
	"download-refused":                   {"downloads"},
	"no-sandbox-capability":              {"security"},
	"download-toast-unconfirmed":         {"downloads"},
	"download-asks-in-window":            {"downloads"},
	"message-consent-unanswered":         {"messages", "model-context", "tools"},
	"app-tools-unsupported":              {"tools"},
	"app-tools-over-limit-refused":       {"tools"},
	// Since the suite asks the agent question once, before the first
	// check that needs the agent (engine.ts prelude), an absent agent
	// reaches only the checks marked agent: true.
	"no-agent": {"model-context", "tools", "visibility"},
	// The host cancels the suite's own tool call: only the checks that
	// read the suite View's tool-result see it (CI 2026-12-02: the two
	// lifecycle/tool-result-* SKIP, 81 PASS).
	"suite-call-cancelled": {"lifecycle"},
	// Without readModelToolList, visibility/app-tool-hidden asks the
	// agent, and the tools checks that read the model's list SKIP.
	"model-tool-list-unread": {"tools", "visibility"},
	// The View shown only once its call has ended: only
	// lifecycle/tool-cancelled's 60 s call has no View to stop (SKIP).
	"view-after-result": {"lifecycle"},
}

// WholeCatalogue are the variations that change how the suite reaches
// what it tests, and so may change a verdict anywhere: they run the whole
// catalogue in both scopes, alone. Every variation is in exactly one of
// NeutralGroups, VariationAreas and WholeCatalogue.
var WholeCatalogue = []string{"no-open-tool", "rerender-once", "tool-call-approval", "tool-call-approval-unanswered", "slow-host", "wire-v2"}

// scopedAreas are the areas the area scope runs set over: the union of
// its variations' VariationAreas when every one of them is listed, else
// nil (the whole catalogue).
func scopedAreas(set []string) []string {
	var areas []string
	for _, v := range set {
		as, ok := VariationAreas[v]
		if !ok {
			return nil
		}
		for _, a := range as {
			if !slices.Contains(areas, a) {
				areas = append(areas, a)
			}
		}
	}
	return areas
}

// packScoped packs the variations of VariationAreas into sets whose
// members share no area (packByArea): one host holds a set's variations,
// and each area's checks run under one of them, as they would under it
// alone. AloneVariations get sets of their own.
func packScoped() [][]string {
	var names []string
	for _, v := range reference.Variations {
		if _, ok := VariationAreas[v.Name]; ok {
			names = append(names, v.Name)
		}
	}
	return packByArea(names, func(v string) []string { return VariationAreas[v] }, func(v string) bool { return slices.Contains(AloneVariations, v) })
}

// AloneVariations are variations of VariationAreas that run over their
// areas alone, never packed: a host that states (almost) no hostContext
// changes what every View reads of it, its packmates' checks included
// (both packs that held one ran again variation by variation in CI on
// 2026-12-02).
var AloneVariations = []string{"context-minimal", "context-empty"}

// outsideAreas are the checks of cases outside areas that did not PASS.
func outsideAreas(cases []report.Case, areas []string) []string {
	var out []string
	for _, c := range cases {
		if c.Status != protocol.StatusPass && !slices.Contains(areas, c.Area()) {
			out = append(out, c.ID+" "+string(c.Status))
		}
	}
	return out
}

// neutral reports whether every variation of vs is listed in NeutralGroups.
func neutral(vs []string) bool {
	for _, v := range vs {
		if !slices.ContainsFunc(NeutralGroups, func(g []string) bool { return slices.Contains(g, v) }) {
			return false
		}
	}
	return len(vs) > 0
}

// GroupedSets are the area scope's variation sets: every variation of
// WholeCatalogue alone, the variations of VariationAreas packed into sets
// that share no area (each over its areas: packScoped), and each neutral
// group as one set. The
// combinations, which show how variations act together, run in the full
// pass only (CI's 30-minute budget).
func GroupedSets() [][]string {
	var sets [][]string
	for _, v := range reference.Variations {
		if _, scoped := VariationAreas[v.Name]; !neutral([]string{v.Name}) && !scoped {
			sets = append(sets, []string{v.Name})
		}
	}
	sets = append(sets, packScoped()...)
	for _, g := range NeutralGroups {
		sets = append(sets, slices.Clone(g))
	}
	return sets
}

// CoveredSets are the grouped scope's variation sets, each run over the
// whole catalogue: every variation of WholeCatalogue and AloneVariations
// alone, each neutral group as one set, Combinations, and the other
// variations of VariationAreas packed by coverAreas, so that each is
// seen on every area of areas in a run where no other member may change a
// verdict there. A check that does not PASS outside the areas of its run's
// members is a problem, so each variation is held to its list on every
// area, as the full pass holds it alone; a red anywhere is a false
// failure. packed marks the sets coverAreas packed: one with a problem
// runs again variation by variation.
func CoveredSets(areas []string) (sets [][]string, packed []bool) {
	add := func(set []string, p bool) {
		sets = append(sets, set)
		packed = append(packed, p)
	}
	var scoped []string
	for _, v := range reference.Variations {
		_, listed := VariationAreas[v.Name]
		switch {
		case neutral([]string{v.Name}):
		case listed && !slices.Contains(AloneVariations, v.Name):
			scoped = append(scoped, v.Name)
		default:
			add([]string{v.Name}, false)
		}
	}
	for _, r := range coverAreas(scoped, areas, nil, func(v string) []string { return VariationAreas[v] }, func(string) bool { return false }) {
		add(r.Defects, len(r.Defects) > 1)
	}
	for _, g := range NeutralGroups {
		add(slices.Clone(g), false)
	}
	for _, c := range Combinations {
		add(slices.Clone(c), false)
	}
	return sets, packed
}

// VariationRun is the outcome under one variation set.
type VariationRun struct {
	Variations []string
	// Areas are the areas the run covered (VariationAreas, area scope);
	// nil for the whole catalogue.
	Areas []string
	// PackProblems: what the run of its packed set showed, when that sent
	// the variation to run alone (for the log).
	PackProblems []string
	Cases        []report.Case
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
	// IDs are the catalogue's check ids (default suite.IDs), for the
	// number of checks a run over some areas must report.
	IDs []string
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
		o.Run = ownFixturesRun
	}
	if o.Catalogue == 0 || o.IDs == nil {
		ids, err := suite.IDs()
		if err != nil {
			return Specificity{}, err
		}
		if o.IDs == nil {
			o.IDs = ids
		}
		if o.Catalogue == 0 {
			o.Catalogue = len(ids)
		}
	}
	sets := o.Sets
	var packed []bool // sets CoveredSets packed (grouped scope)
	if sets == nil {
		switch o.Scope {
		case ScopeArea:
			sets = GroupedSets()
		case ScopeGrouped:
			sets, packed = CoveredSets(areasOf(o.IDs))
		default:
			sets = VariationSets()
		}
	}
	for _, set := range sets {
		if _, err := reference.ParseVariations(set); err != nil {
			return Specificity{}, err
		}
	}
	runSet := func(set []string) VariationRun {
		vs, _ := reference.ParseVariations(set)
		r := VariationRun{Variations: vs.List()}
		ro := runner.Options{Env: o.Env}
		want := o.Catalogue
		if areas := scopedAreas(set); o.Scope == ScopeArea && areas != nil {
			r.Areas = areas
			for _, a := range areas {
				ro.Selection.Globs = append(ro.Selection.Globs, a+"/*")
			}
			want = selected(o.IDs, ro.Selection.Globs)
		}
		hr, err := o.Run(ctx, reference.NewWith(nil, vs), ro)
		r.Cases, r.Err = hr.Cases, err
		if err == nil && len(hr.Cases) != want {
			r.Problems = append(r.Problems, fmt.Sprintf("ran %d checks, the catalogue has %d", len(hr.Cases), want))
		}
		if areas := scopedAreas(set); err == nil && r.Areas == nil && areas != nil {
			if out := outsideAreas(hr.Cases, areas); len(out) > 0 {
				r.Problems = append(r.Problems, fmt.Sprintf("not PASS outside the areas selftest.VariationAreas gives %s (%s), where alone it may change a verdict: %s; add their areas", strings.Join(set, "+"), strings.Join(areas, ", "), strings.Join(out, ", ")))
			}
		}
		for _, c := range hr.Cases {
			if isFalseFailure(c.Status) {
				r.Problems = append(r.Problems, fmt.Sprintf("%s went %s under a legal variation (false failure): %s", c.ID, c.Status, c.Message))
			} else if c.Status != protocol.StatusPass && speedOnly(r.Variations) {
				r.Problems = append(r.Problems, fmt.Sprintf("%s went %s on a host that is only slower (PASS on the plain reference host): a verdict that depends on the host's speed: %s", c.ID, c.Status, c.Message))
			} else if c.Status != protocol.StatusPass && neutral(r.Variations) {
				r.Problems = append(r.Problems, fmt.Sprintf("%s went %s under variations listed as leaving every check PASS (selftest.NeutralGroups): run them alone (MCPCONFORM_VARIATIONS=%s) and move the one that changes it out of its group: %s", c.ID, c.Status, strings.Join(r.Variations, ","), c.Message))
			}
		}
		if err == nil {
			r.Problems = append(r.Problems, tookEffect(vs, hr)...)
		}
		return r
	}
	o.Pool = o.pool()
	cost := func(i int) int {
		var globs []string
		if areas := scopedAreas(sets[i]); o.Scope == ScopeArea && areas != nil {
			for _, a := range areas {
				globs = append(globs, a+"/*")
			}
		}
		return selected(o.IDs, globs)
	}
	byJob := runAll(len(sets), o.Pool, cost, func(i int) []VariationRun {
		r := runSet(sets[i])
		// A packed set (several variations over their own areas, or the
		// whole catalogue under CoveredSets) with a problem runs again
		// variation by variation: what is reported is each one's own run,
		// as in the full pass.
		pack := o.Scope == ScopeArea && len(sets[i]) > 1 && r.Areas != nil || i < len(packed) && packed[i]
		if pack && (len(r.Problems) > 0 || r.Err != nil) {
			var alone []VariationRun
			clean := true
			for _, v := range sets[i] {
				a := runSet([]string{v})
				a.PackProblems = r.Problems
				if r.Err != nil {
					a.PackProblems = append(a.PackProblems, r.Err.Error())
				}
				clean = clean && len(a.Problems) == 0 && a.Err == nil
				alone = append(alone, a)
			}
			// Every member clean alone: the packed run's problem is no
			// variation's own, and the runs alone must not hide it (as
			// afterGroup says of defects).
			if clean {
				for j := range alone {
					alone[j].Problems = append(alone[j].Problems, fmt.Sprintf("packed with %s the run showed %s; each alone shows none: the runs disagree (find the cause: a fault of ours, or variations that truly interact, to run apart)", strings.Join(sets[i], "+"), strings.Join(alone[j].PackProblems, "; ")))
				}
			}
			return alone
		}
		return []VariationRun{r}
	}, func(rs []VariationRun) {
		if o.Progress != nil {
			for _, r := range rs {
				o.Progress(r)
			}
		}
	})
	var runs []VariationRun
	for _, rs := range byJob {
		runs = append(runs, rs...)
	}
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
	problems = append(problems, promptSkipProblems(vs, hr.Cases)...)
	return problems
}

// promptSkips: under a variation whose host asks its user a question the
// driver does not answer, the check that sends the request ends SKIP
// saying the host waits on its user, with what the page showed and the
// variable that would let the driver answer (issue #23 item 2).
var promptSkips = map[string]struct{ check, shown, variable string }{
	"download-toast-unconfirmed":    {"downloads/download-file", "Download 1 file?", "CONFIRM"},
	"download-asks-in-window":       {"downloads/download-file", "window: Download 1 file?", "CONFIRM"},
	"message-consent-unanswered":    {"messages/add-to-conversation", "Send the app's message?", "APPROVE"},
	"tool-call-approval-unanswered": {"visibility/app-only-tool-callable", "Let the app call a tool?", "APPROVE"},
}

func promptSkipProblems(vs reference.VariationSet, cases []report.Case) []string {
	var problems []string
	for v, want := range promptSkips {
		if !vs[v] {
			continue
		}
		found := false
		for _, c := range cases {
			if c.ID != want.check {
				continue
			}
			found = true
			if c.Status != protocol.StatusSkip || !strings.Contains(c.Message, "waiting on the user") || !strings.Contains(c.Message, want.shown) || !strings.Contains(c.Message, want.variable) {
				problems = append(problems, fmt.Sprintf("variation %s: %s ended %s %q, want a SKIP naming the host's question (%q) and %s", v, c.ID, c.Status, c.Message, want.shown, want.variable))
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("variation %s: %s did not run", v, want.check))
		}
	}
	return problems
}
