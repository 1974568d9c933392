package generic

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/protocol"
)

// Report is what `mcpconform hosts --check NAME` prints: the variables of
// the profile, its steps and capabilities, and every problem. Check starts
// nothing (no browser, no host): selectors are checked for what can be
// checked without a browser; the browser parses them at the start of Setup.
type Report struct {
	Name string
	// Variables are every profile variable with whether it is set (values
	// are not kept: they may hold tokens).
	Variables []VarStatus
	Steps     []Step
	// Actions describe the other variables that do something (START,
	// OPEN_TOOL, CLOSE, CANCEL, MODEL_TOOLS), as --check prints them:
	// no command lines or typed text, which may hold secrets.
	Actions []Action
	// Supported and Unsupported partition protocol.Kinds; Why says why
	// each unsupported one is.
	Supported, Unsupported []protocol.Kind
	Why                    map[protocol.Kind]string
	// Warnings are what the profile allows but cannot work as meant (a
	// capability nothing can ever use); they do not make it unusable.
	Warnings []string
	// Examples are the placeholders' example values each variable's steps
	// are shown with (Example): variable → placeholder → value.
	Examples map[string]map[string]string
	// Err is nil for a usable profile, else a *ProfileError (errors.Is
	// ErrProfile) listing every problem.
	Err error
}

// Example values of the run's placeholders, for --check: what a run
// fills in has this shape ({server} is the fixture server's URL on a
// random loopback port, or the fixed one of --fixture-port).
const (
	exampleServer  = "http://127.0.0.1:41001/mcp"
	exampleServer2 = "http://127.0.0.1:41002/mcp"
	examplePort    = "41000"
	// The suite's plain probe: the tool and arguments OPEN_TOOL is called
	// with most often (fixtures/suite/tests/probes.ts, plainProbe).
	exampleTool      = mcpserver.ToolSlow
	exampleArguments = `{"probe":"probe-1","delayMs":1200,"csp":true}`
	exampleMarker    = "probe-1"
)

// examples are the example values of the placeholders of each variable
// that takes steps.
func (c *config) examples() map[string]map[string]string {
	base := map[string]string{PhServer: exampleServer, PhServer2: exampleServer2, PhNonce: sampleNonce, PhPort: examplePort}
	base[PhURL] = expand(c.url, base)
	with := func(kv ...string) map[string]string {
		m := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return map[string]map[string]string{
		"STEPS":     base,
		"OPEN_TOOL": with(PhTool, exampleTool, PhArguments, exampleArguments),
		"CLOSE":     with(PhMarker, exampleMarker),
		"CANCEL":    with(PhMarker, exampleMarker),
	}
}

// Example is the step st with the placeholders filled in from vars, as
// --check shows it ("" when st has none): the values a run types, except
// what may be a secret: the literal values of a goto's query string stay
// hidden ("…"), those made of placeholders are shown.
func Example(st Step, vars map[string]string) string {
	if !hasPlaceholders(st.Target) && !hasPlaceholders(st.Text) {
		return ""
	}
	switch st.Verb {
	case VerbGoto:
		return "goto " + exampleURL(st.Target, vars)
	case VerbFillForm:
		return "fill-form " + formExample(st.Target, st.Text, vars)
	case VerbFill:
		return fmt.Sprintf("fill %s=%s", expand(st.Target, vars), exampleText(st.Text, vars))
	}
	if assigns(st.Verb) {
		return fmt.Sprintf("%s %s=%s", st.Verb, expand(st.Target, vars), expand(st.Text, vars))
	}
	return st.Verb + " " + expand(st.Target, vars)
}

// exampleText is what fill types with vars filled in, its literal text
// hidden ("…": it may be a password), the placeholders' values shown.
func exampleText(t string, vars map[string]string) string {
	var b strings.Builder
	last := 0
	for _, loc := range tokens(t) {
		if loc[0] > last {
			b.WriteString("…")
		}
		b.WriteString(expand(t[loc[0]:loc[1]], vars))
		last = loc[1]
	}
	if last < len(t) {
		b.WriteString("…")
	}
	return b.String()
}

// exampleURL expands a goto target; of its query string, values that are
// literal text are hidden (deep links carry tokens), values with a
// placeholder are shown expanded.
func exampleURL(t string, vars map[string]string) string {
	path, query, ok := strings.Cut(t, "?")
	out := expand(path, vars)
	if !ok {
		return out
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		k, v, _ := strings.Cut(p, "=")
		switch {
		case hasPlaceholders(v):
			params[i] = expand(k, vars) + "=" + expand(v, vars)
		case v != "" || strings.Contains(p, "="):
			params[i] = expand(k, vars) + "=…"
		default:
			params[i] = "…"
		}
	}
	return out + "?" + strings.Join(params, "&")
}

// warnings are the capabilities the profile gives that nothing can use.
func (c *config) warnings(name string) []string {
	var out []string
	var acting []string
	for _, k := range []protocol.Kind{protocol.KindCloseView, protocol.KindCancelTool} {
		if c.caps[k] {
			acting = append(acting, string(k))
		}
	}
	if len(acting) > 0 && !c.caps[protocol.KindOpenTool] {
		out = append(out, fmt.Sprintf("%s act only on a probe View, which the suite opens through openTool (%s) or, without it, by asking the host's agent to call a probe tool: "+
			"%s is not set, so unless the host has an agent that calls the tools it is asked to, %s will never be used (docs/profiles.md, Capability dependencies)",
			strings.Join(acting, " and "), Var(name, "OPEN_TOOL"), Var(name, "OPEN_TOOL"), strings.Join(acting, " and ")))
	}
	if len(c.openTool) > 0 && !c.usesArguments() {
		out = append(out, fmt.Sprintf("%s never uses {%s} or {%s.NAME}: every probe tool needs its arguments (always probe, the id its View shows), so the host's calls would fail or carry the wrong probe",
			Var(name, "OPEN_TOOL"), PhArguments, PhArguments))
	}
	return out
}

// usesArguments reports whether OPEN_TOOL passes the call's arguments on.
func (c *config) usesArguments() bool {
	for _, st := range c.openTool {
		for _, s := range []string{st.Target, st.Text} {
			for _, loc := range tokens(s) {
				if p, ok := parsePlaceholder(s[loc[0]:loc[1]]); ok && p.name == PhArguments {
					return true
				}
			}
		}
	}
	return false
}

// Action is one of Report.Actions.
type Action struct {
	Variable string // e.g. OPEN_TOOL
	What     string // one line
	Steps    []Step // its steps, if it has any
}

// actions describes c's START, OPEN_TOOL, CLOSE, CANCEL, MODEL_TOOLS and
// NEW_SESSION.
func (c *config) actions() []Action {
	var out []Action
	if c.start != "" {
		ready := "a line with " + fmt.Sprintf("%q", c.ready.line)
		if c.ready.url != "" {
			ready = Redact(c.ready.url) + " answering"
		}
		out = append(out, Action{Variable: "START", What: fmt.Sprintf("a command, ready at %s (within %s)", ready, shortDuration(c.startTimeout))})
	}
	if len(c.openTool) > 0 {
		where := "in a new tab"
		if c.openToolSame {
			where = "in the suite's page"
		}
		out = append(out, Action{Variable: "OPEN_TOOL", What: "steps, " + where, Steps: c.openTool})
	}
	for _, a := range []struct {
		v string
		a action
	}{{"CLOSE", c.close}, {"CANCEL", c.cancel}} {
		switch {
		case a.a.sel != "":
			out = append(out, Action{Variable: a.v, What: fmt.Sprintf("click %s nearest the View", a.a.sel)})
		case len(a.a.steps) > 0:
			out = append(out, Action{Variable: a.v, What: "steps, in the View's page", Steps: a.a.steps})
		}
	}
	if m := c.modelTools; m.sel != "" {
		what := "the text of each " + m.sel
		if m.attr != "" {
			what = fmt.Sprintf("the %s of each %s", m.attr, m.sel)
		}
		out = append(out, Action{Variable: "MODEL_TOOLS", What: what})
	}
	if len(c.newSession) > 0 {
		out = append(out, Action{Variable: "NEW_SESSION", What: "steps, in a new tab, then MODEL_TOOLS read there", Steps: c.newSession})
	}
	return out
}

// VarStatus is one variable of a profile.
type VarStatus struct {
	Name     string // full name, e.g. MCPCONFORM_X_URL
	Set      bool
	Empty    bool // set to "" (or spaces): counts as missing
	Required bool
	Default  string // the default when unset, "" if none
}

// OK reports whether the profile is usable.
func (r Report) OK() bool { return r.Err == nil }

// Problems lists what to fix, each naming its variable (and step).
func (r Report) Problems() []string {
	var pe *ProfileError
	if errors.As(r.Err, &pe) {
		return pe.Problems
	}
	if r.Err != nil {
		return []string{r.Err.Error()}
	}
	return nil
}

// Check validates the profile name in l as Lookup would, without starting
// anything.
func Check(name string, l envconfig.Lookuper) Report {
	r := Report{Name: Canonical(name), Why: map[protocol.Kind]string{}}
	if nameRE.MatchString(name) {
		pl := envconfig.PrefixLookuper(Prefix+Key(name)+"_", l)
		for _, v := range Variables {
			val, ok := pl.Lookup(v)
			vs := VarStatus{Name: Var(name, v), Set: ok, Empty: ok && strings.TrimSpace(val) == "", Required: isRequired(v)}
			switch v {
			case "STEP_TIMEOUT":
				vs.Default = "30s"
			case "START_TIMEOUT":
				vs.Default = "1m"
			case "OPEN_TOOL_PAGE":
				vs.Default = OpenToolNew
			case "DIALOGS":
				vs.Default = strings.Join(dialogNames(), ",")
			}
			r.Variables = append(r.Variables, vs)
		}
	}
	p, err := Load(name, l)
	if err != nil {
		r.Err = err
		return r
	}
	c, err := compile(name, p, Hooks{})
	if err != nil {
		r.Err = err
		return r
	}
	r.Steps = c.steps
	r.Actions = c.actions()
	r.Warnings = c.warnings(name)
	r.Examples = c.examples()
	for _, k := range protocol.Kinds {
		if c.caps[k] {
			r.Supported = append(r.Supported, k)
		} else {
			r.Unsupported = append(r.Unsupported, k)
			r.Why[k] = c.why(k)
		}
	}
	return r
}

// shortDuration is d as Go prints it, without a trailing "0s" after
// minutes (1m, not 1m0s).
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}
