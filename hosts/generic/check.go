package generic

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"

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
	// Err is nil for a usable profile, else a *ProfileError (errors.Is
	// ErrProfile) listing every problem.
	Err error
}

// Action is one of Report.Actions.
type Action struct {
	Variable string // e.g. OPEN_TOOL
	What     string // one line
	Steps    []Step // its steps, if it has any
}

// actions describes c's START, OPEN_TOOL, CLOSE, CANCEL and MODEL_TOOLS.
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
