// Compiling a profile's START/READY and its View actions (OPEN_TOOL, CLOSE,
// CANCEL) into its config.

package generic

import (
	"slices"
	"strings"
)

// compileStart checks START, READY and START_TIMEOUT.
func (c *config) compileStart(name string, p Profile, bad func(v, format string, args ...any)) {
	c.start = strings.TrimSpace(p.Start)
	c.startTimeout = p.StartTimeout
	r := strings.TrimSpace(p.Ready)
	switch {
	case c.start == "" && r != "":
		bad("READY", "is set but %s is not: READY says when the START command is up", Var(name, "START"))
	case c.start != "" && r == "":
		bad("START", "is set but %s is not: say when it is up, with a URL that answers (e.g. http://127.0.0.1:{port}/) or %sTEXT (a line it prints)", Var(name, "READY"), ReadyLine)
	}
	if c.start != "" {
		if err := checkPlaceholders(c.start, c.placeholders); err != nil {
			bad("START", "%v", err)
		}
		if !startSupported {
			bad("START", "starting a command needs a Unix system (its process group is stopped after the run)")
		}
	}
	switch {
	case r == "":
	case strings.HasPrefix(r, ReadyLine):
		c.ready.line = strings.TrimSpace(strings.TrimPrefix(r, ReadyLine))
		if c.ready.line == "" {
			bad("READY", "%q waits for nothing: give the text after %s", r, ReadyLine)
		} else if err := checkPlaceholders(c.ready.line, c.placeholders); err != nil {
			bad("READY", "%v", err)
		}
	default:
		if err := checkPlaceholders(r, c.placeholders); err != nil {
			bad("READY", "%v", err)
		} else if err := checkURLTemplate(r); err != nil {
			bad("READY", "%q is neither an http(s) URL (such as http://127.0.0.1:{port}/) nor %sTEXT", r, ReadyLine)
		}
		c.ready.url = r
	}
	if p.StartTimeout <= 0 {
		bad("START_TIMEOUT", "must be a positive duration such as 1m, got %s", p.StartTimeout)
	}
}

// compileActions checks OPEN_TOOL, OPEN_TOOL_PAGE, CLOSE and CANCEL.
func (c *config) compileActions(name string, p Profile, bad func(v, format string, args ...any), problems *[]string) {
	switch pg := strings.TrimSpace(p.OpenToolPage); {
	case pg == "" || strings.EqualFold(pg, OpenToolNew):
	case strings.EqualFold(pg, OpenToolSame):
		c.openToolSame = true
	default:
		bad("OPEN_TOOL_PAGE", "%q is neither %q (a new tab, the default) nor %q (the page that shows the suite)", pg, OpenToolNew, OpenToolSame)
	}
	if strings.TrimSpace(p.OpenTool) != "" {
		steps, sp := parseSteps(Var(name, "OPEN_TOOL"), p.OpenTool, append(slices.Clone(c.placeholders), PhTool, PhArguments), !c.openToolSame)
		c.openTool = steps
		*problems = append(*problems, sp...)
		if len(sp) == 0 && !strings.Contains(p.OpenTool, "{"+PhTool) {
			bad("OPEN_TOOL", "never uses {%s}: the steps must make the host call the tool the suite names", PhTool)
		}
	} else if strings.TrimSpace(p.OpenToolPage) != "" {
		bad("OPEN_TOOL_PAGE", "is set but %s is not", Var(name, "OPEN_TOOL"))
	}
	c.close = compileAction(name, "CLOSE", p.Close, c.placeholders, problems)
	c.cancel = compileAction(name, "CANCEL", p.Cancel, c.placeholders, problems)
}

// compileAction parses CLOSE or CANCEL: steps when it starts with a step
// verb and a space, else a selector.
func compileAction(name, v, val string, placeholders []string, problems *[]string) action {
	val = strings.TrimSpace(val)
	if val == "" {
		return action{}
	}
	allowed := append(slices.Clone(placeholders), PhMarker)
	if verb, _, ok := strings.Cut(val, " "); ok && isVerb(verb) {
		steps, sp := parseSteps(Var(name, v), val, allowed, false)
		*problems = append(*problems, sp...)
		return action{steps: steps}
	}
	if err := checkPlaceholders(val, []string{PhMarker}); err != nil {
		*problems = append(*problems, Var(name, v)+": "+err.Error())
	} else if err := CheckSelector(val); err != nil {
		*problems = append(*problems, Var(name, v)+": "+err.Error())
	}
	return action{sel: val}
}
