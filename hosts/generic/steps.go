package generic

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Verbs of the step language.
const (
	VerbGoto    = "goto"     // goto URL: load URL in the page
	VerbClick   = "click"    // click SELECTOR: click the first match once it is actionable
	VerbFill    = "fill"     // fill SELECTOR=TEXT: type TEXT into the first match
	VerbPress   = "press"    // press KEY: press KEY (Enter, Tab, Control+A …) in the focused element
	VerbWaitFor = "wait-for" // wait-for SELECTOR: wait until the first match is visible
	// select SELECTOR=VALUE: choose the option VALUE (its value or its
	// label) of the first matching <select>
	VerbSelect = "select"
	// wait-for-text SELECTOR=TEXT: wait until an element that matches
	// shows TEXT (its text contains it) and is visible
	VerbWaitForText = "wait-for-text"
	// wait-for-hidden SELECTOR: wait until no element that matches is
	// visible (hidden or gone)
	VerbWaitForHidden = "wait-for-hidden"
	// fill-form TEMPLATE=OBJECT: set each field of the JSON object OBJECT
	// (usually {arguments}) in the form field TEMPLATE names with {key}
	// replaced by the field's name, for hosts that render a tool's input
	// schema as a form with one field per argument
	VerbFillForm = "fill-form"
)

// Verbs lists the step verbs in the order the documentation gives them.
var Verbs = []string{VerbGoto, VerbClick, VerbFill, VerbFillForm, VerbSelect, VerbPress, VerbWaitFor, VerbWaitForText, VerbWaitForHidden}

// assigns reports whether verb takes SELECTOR=TEXT.
func assigns(verb string) bool {
	return verb == VerbFill || verb == VerbFillForm || verb == VerbSelect || verb == VerbWaitForText
}

// selects reports whether verb's target is a selector.
func selects(verb string) bool { return verb != VerbGoto && verb != VerbPress }

// Step is one parsed step of a profile's STEPS.
type Step struct {
	Index int    // 1-based position in STEPS
	Verb  string // one of Verbs
	// Target is the URL (goto), the selector (click, fill, select and the
	// waits) or the key (press), with placeholders still in it.
	Target string
	// Text is what fill types, the option select chooses or the text
	// wait-for-text waits for, placeholders still in it.
	Text string
	Raw  string // the step as written
}

// String renders the step as it would be written, with fill's text left
// out (it may be a password): only its length is given, that of the value
// it types once the placeholders whose length is known before the run
// ({nonce}) are filled in; the others are named ("12 characters +
// {server}"). Describe gives the exact length.
func (s Step) String() string { return s.Describe(map[string]string{PhNonce: sampleNonce}) }

// sampleNonce has the length of every run's {nonce}.
const sampleNonce = "0123456789abcdef"

// Describe is String with the placeholders of vars filled in to count
// fill's characters (Setup's log gives the exact length of what is typed).
func (s Step) Describe(vars map[string]string) string {
	switch s.Verb {
	case VerbFill:
		return fmt.Sprintf("fill %s=(%s)", s.Target, valueLength(s.Text, vars))
	case VerbFillForm:
		return fmt.Sprintf("fill-form %s=(%s)", s.Target, formSummary(s.Text, vars))
	case VerbSelect, VerbWaitForText:
		return fmt.Sprintf("%s %s=%s", s.Verb, s.Target, s.Text)
	case VerbGoto:
		t := s.Target
		if i := strings.IndexByte(t, '?'); i >= 0 {
			t = t[:i] + "?…" // query strings carry tokens
		}
		return "goto " + t
	}
	return s.Verb + " " + s.Target
}

// opensQuote reports whether the quote at s[i] starts a quoted string: at
// the start of a token (after a space, "=", "(", "[", ",", ">" or nothing),
// so that an apostrophe inside a word ("Don't") stays literal.
func opensQuote(s string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\n=([,>", s[i-1]) >= 0
}

// scanner walks a profile value byte by byte, tracking quotes (see
// opensQuote; a backslash escapes inside them) and the nesting of brackets
// and parentheses, as a Playwright selector nests them.
type scanner struct {
	s     string
	stack []byte
	quote byte
}

// next reads s[i] and returns where to read on, whether s[i] is at top
// level (outside quotes and brackets, and not itself a quote or bracket),
// and whether it is a closing bracket that closes nothing open.
func (sc *scanner) next(i int) (next int, top, unmatched bool) {
	c := sc.s[i]
	switch {
	case sc.quote != 0:
		if c == '\\' {
			i++
		} else if c == sc.quote {
			sc.quote = 0
		}
	case (c == '"' || c == '\'') && opensQuote(sc.s, i):
		sc.quote = c
	case c == '[' || c == '(':
		sc.stack = append(sc.stack, c)
	case c == ']' || c == ')':
		open := byte('[')
		if c == ')' {
			open = '('
		}
		n := len(sc.stack)
		unmatched = n == 0 || sc.stack[n-1] != open
		if n > 0 {
			sc.stack = sc.stack[:n-1]
		}
	default:
		top = len(sc.stack) == 0
	}
	return i + 1, top, unmatched
}

// splitTop splits s at every byte of seps that is outside quotes, brackets
// and parentheses.
func splitTop(s string, seps string) []string {
	var out []string
	sc := scanner{s: s}
	start := 0
	for i := 0; i < len(s); {
		next, top, _ := sc.next(i)
		if top && strings.IndexByte(seps, s[i]) >= 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
		i = next
	}
	return append(out, s[start:])
}

// ParseSteps parses a STEPS value. variable names the variable in errors,
// allowed lists the placeholders the steps may use. Steps are separated by
// ";" or newlines outside quotes and brackets; empty steps are ignored.
// The first step must be a goto: the page starts blank.
func ParseSteps(variable, s string, allowed []string) ([]Step, []string) {
	return parseSteps(variable, s, allowed, true)
}

// parseSteps is ParseSteps; needGoto says whether the first step must be a
// goto (steps that run in a page already showing the host need not).
func parseSteps(variable, s string, allowed []string, needGoto bool) ([]Step, []string) {
	var steps []Step
	var problems []string
	n := 0
	for _, raw := range splitTop(s, ";\n") {
		raw = strings.TrimSpace(raw)
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		n++
		st, err := parseStep(raw, allowed)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s step %d (%q): %v", variable, n, describeRaw(raw), err))
			continue
		}
		st.Index = n
		steps = append(steps, st)
	}
	if n == 0 {
		problems = append(problems, fmt.Sprintf("%s has no steps: give at least %q", variable, "goto {url}"))
	} else if needGoto && len(steps) > 0 && steps[0].Index == 1 && steps[0].Verb != VerbGoto {
		problems = append(problems, fmt.Sprintf("%s step 1 (%q): the first step must be goto (the page starts blank), e.g. %q", variable, steps[0].String(), "goto {url}"))
	}
	return steps, problems
}

// describeRaw renders a step as written for an error message, without what
// fill types and with URL query strings hidden.
func describeRaw(raw string) string {
	verb, arg, _ := strings.Cut(raw, " ")
	if strings.EqualFold(verb, VerbFill) {
		if sel, text, ok := cutAssign(strings.TrimSpace(arg)); ok {
			return fmt.Sprintf("%s %s=(%d characters)", verb, sel, len(text))
		}
	}
	return Redact(raw)
}

// isVerb reports whether v (any case) is a step verb.
func isVerb(v string) bool {
	for _, x := range Verbs {
		if strings.EqualFold(v, x) {
			return true
		}
	}
	return false
}

func parseStep(raw string, allowed []string) (Step, error) {
	verb, arg, _ := strings.Cut(raw, " ")
	verb = strings.ToLower(strings.TrimSpace(verb))
	arg = strings.TrimSpace(arg)
	st := Step{Verb: verb, Raw: raw}
	if !isVerb(verb) {
		return st, fmt.Errorf("unknown step %q: use %s", verb, orList(Verbs))
	}
	if arg == "" {
		return st, fmt.Errorf("%s needs %s", verb, argHelp(verb))
	}
	// fill-form's selector takes {key} too: its parts are checked apart.
	if verb != VerbFillForm {
		if err := checkPlaceholders(arg, allowed); err != nil {
			return st, err
		}
	}
	switch {
	case verb == VerbGoto:
		st.Target = arg
		if err := checkURLTemplate(arg); err != nil {
			return st, err
		}
	case verb == VerbPress:
		if strings.ContainsAny(arg, " \t") {
			return st, fmt.Errorf("press takes one key such as Enter, Tab or Control+A, got %q", arg)
		}
		st.Target = arg
	case assigns(verb):
		sel, text, ok := cutAssign(arg)
		if !ok {
			return st, fmt.Errorf("%s needs %s (the first = outside quotes and brackets ends the selector)", verb, argHelp(verb))
		}
		if err := CheckSelector(sel); err != nil {
			return st, err
		}
		t, err := unquoteText(text)
		if err != nil {
			return st, err
		}
		if t == "" && verb != VerbFill {
			return st, fmt.Errorf("%s needs %s: the text after = is empty", verb, argHelp(verb))
		}
		if verb == VerbFillForm {
			if err := checkFillForm(sel, t, allowed); err != nil {
				return st, err
			}
		}
		st.Target, st.Text = sel, t
	default: // click, wait-for, wait-for-hidden
		st.Target = arg
		if err := CheckSelector(arg); err != nil {
			return st, err
		}
	}
	return st, nil
}

func argHelp(verb string) string {
	switch verb {
	case VerbGoto:
		return "a URL, e.g. goto {url}"
	case VerbFill:
		return "SELECTOR=TEXT, e.g. fill textarea=Run the conformance suite"
	case VerbSelect:
		return "SELECTOR=VALUE, e.g. select select[name=transport]=http"
	case VerbWaitForText:
		return `SELECTOR=TEXT, e.g. wait-for-text [data-testid=status]=Connected`
	case VerbFillForm:
		return `TEMPLATE=OBJECT, e.g. fill-form [name="{key}"]={arguments}`
	case VerbPress:
		return "a key, e.g. press Enter"
	}
	return "a selector, e.g. " + verb + ` [data-testid="send"]`
}

// checkFillForm checks a fill-form step: its selector names the field
// with {key}, and its value is a JSON object once the placeholders are
// filled in ({arguments}, or an object written out such as
// {"nonce": "{nonce}"}).
func checkFillForm(sel, text string, allowed []string) error {
	if err := checkPlaceholders(sel, append(slices.Clone(allowed), PhKey)); err != nil {
		return err
	}
	if err := checkPlaceholders(text, allowed); err != nil {
		return err
	}
	if !strings.Contains(sel, "{"+PhKey) {
		return fmt.Errorf("fill-form's selector %q never uses {%s}: it must name each field, e.g. [name=\"{%s}\"]", sel, PhKey, PhKey)
	}
	sample := replaceTokens(expand(text, sampleVars), func(string) string { return "x" })
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(sample), &m); err != nil || m == nil {
		return fmt.Errorf("fill-form needs a JSON object after =, such as {%s} or {\"nonce\": \"{%s}\"}, got %q", PhArguments, PhNonce, text)
	}
	return nil
}

// sampleVars stand in for the placeholders when a value is checked before
// the run: the shape of each, not a real value.
var sampleVars = map[string]string{
	PhURL: "http://127.0.0.1:1", PhServer: "http://127.0.0.1:2/mcp", PhServer2: "http://127.0.0.1:3/mcp", PhNonce: "0123",
	PhPort: "5", PhTool: "t", PhArguments: `{"probe":"p"}`, PhMarker: "m", PhDialog: "download", PhKey: "k",
}

// checkURLTemplate checks that a goto target is an absolute http(s) URL
// once its placeholders are filled in.
func checkURLTemplate(t string) error {
	sample := expand(t, sampleVars)
	// Placeholders supplied by a Go hook have no sample: stand in a host.
	sample = replaceTokens(sample, func(string) string { return "http://127.0.0.1:4" })
	u, err := url.Parse(sample)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("goto needs an absolute http(s) URL such as {url} or {url}/path, got %q", t)
	}
	return nil
}

// Playwright selector engines written as name=body; their "=" is part of
// the selector, not fill's separator.
var engines = []string{"css", "xpath", "text", "id", "role", "data-testid", "data-test-id", "data-test", "nth", "visible", "internal:text", "internal:label", "internal:role", "internal:testid", "internal:attr", "internal:has-text"}

// cutAssign splits SELECTOR=TEXT at the first "=" outside quotes,
// brackets and parentheses, after a leading selector engine's own "=".
func cutAssign(s string) (sel, text string, ok bool) {
	skip := 0
	for _, e := range engines {
		if strings.HasPrefix(s, e+"=") {
			skip = len(e) + 1
		}
	}
	parts := splitTop(s[skip:], "=")
	if len(parts) < 2 {
		return "", "", false
	}
	sel = strings.TrimSpace(s[:skip] + parts[0])
	text = strings.TrimSpace(s[skip+len(parts[0])+1:])
	return sel, text, true
}

// unquoteText strips one pair of quotes: "…" with Go escapes, or '…' as is.
func unquoteText(t string) (string, error) {
	switch {
	case len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"':
		u, err := strconv.Unquote(t)
		if err != nil {
			return "", fmt.Errorf("bad quoted text %s: %v", t, err)
		}
		return u, nil
	case len(t) >= 2 && t[0] == '\'' && t[len(t)-1] == '\'':
		return t[1 : len(t)-1], nil
	}
	return t, nil
}

// CheckSelector checks what can be checked of a Playwright selector without
// a browser: it is not empty, its quotes, brackets and parentheses balance,
// and it does not start or end with the chaining operator >>. The browser
// parses the rest when Setup begins, before any step runs.
func CheckSelector(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty selector")
	}
	sc := scanner{s: s}
	for i := 0; i < len(s); {
		next, _, unmatched := sc.next(i)
		if unmatched {
			return fmt.Errorf("bad selector %q: unexpected %q at offset %d", s, string(s[i]), i)
		}
		i = next
	}
	if sc.quote != 0 {
		return fmt.Errorf("bad selector %q: unclosed %c quote", s, sc.quote)
	}
	if len(sc.stack) > 0 {
		return fmt.Errorf("bad selector %q: unclosed %q", s, string(sc.stack[len(sc.stack)-1]))
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, ">>") || strings.HasSuffix(t, ">>") {
		return fmt.Errorf("bad selector %q: it starts or ends with >>", s)
	}
	return nil
}

// ParseFramePath splits an APP_FRAME value into iframe selectors, from the
// top page down, separated by ";" outside quotes and brackets (as the chat
// drivers' APP_FRAME_SELECTORS): "iframe.outer; iframe" enters
// iframe.outer, then the first iframe inside it.
func ParseFramePath(s string) ([]string, error) {
	var out []string
	for i, part := range splitTop(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("part %d of the frame path %q is empty (separate iframe selectors with ;)", i+1, s)
		}
		if err := CheckSelector(part); err != nil {
			return nil, fmt.Errorf("part %d of the frame path: %v", i+1, err)
		}
		out = append(out, part)
	}
	return out, nil
}

func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
