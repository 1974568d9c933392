package generic

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"regexp"
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
)

// Verbs lists the step verbs in the order the documentation gives them.
var Verbs = []string{VerbGoto, VerbClick, VerbFill, VerbSelect, VerbPress, VerbWaitFor, VerbWaitForText, VerbWaitForHidden}

// assigns reports whether verb takes SELECTOR=TEXT.
func assigns(verb string) bool {
	return verb == VerbFill || verb == VerbSelect || verb == VerbWaitForText
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

// Placeholders every profile may use in STEPS.
const (
	PhURL     = "url"     // the profile's URL
	PhServer  = "server"  // the fixture MCP server (hosts.Env.ServerURL)
	PhServer2 = "server2" // the second fixture MCP server (hosts.Env.SecondServerURL)
	PhNonce   = "nonce"   // a fresh random hex string per run
	PhPort    = "port"    // a free loopback TCP port, chosen per run (for START)
	PhDialog  = "dialog"  // in CONFIRM only: open-link, download or sampling
	// In OPEN_TOOL only: the tool to call and its arguments (a JSON object).
	PhTool      = "tool"
	PhArguments = "arguments"
	// In CLOSE and CANCEL only: the text the View to act on displays.
	PhMarker = "marker"
)

// URLForm is the suffix of a placeholder's URL-encoded form: {server:url}
// is {server} percent-encoded for a query parameter or a path segment
// (encodeURIComponent's encoding).
const URLForm = ":url"

// Base64URLForm is the suffix of a placeholder's base64url form (RFC 4648
// §5, without padding), for deep links that carry a JSON value that way:
// {arguments:base64url}.
const Base64URLForm = ":base64url"

// forms are the placeholder forms and how each encodes the value.
var forms = map[string]func(string) string{
	URLForm:       URLEncode,
	Base64URLForm: func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) },
}

// placeholderRE matches {name} and {name:form} (the forms: see forms).
var placeholderRE = regexp.MustCompile(`\{([a-z][a-z0-9_]*)(:[a-z0-9]+)?\}`)

// valueLength says how long s is with vars filled in: "N characters",
// followed by "+ {name}" for each placeholder vars has no value for.
func valueLength(s string, vars map[string]string) string {
	var unknown []string
	n := len(placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := lookupPlaceholder(m, vars); ok {
			return v
		}
		unknown = append(unknown, m)
		return ""
	}))
	out := fmt.Sprintf("%d characters", n)
	if n == 1 {
		out = "1 character"
	}
	if n == 0 && len(unknown) > 0 {
		return strings.Join(unknown, " + ")
	}
	for _, u := range unknown {
		out += " + " + u
	}
	return out
}

// lookupPlaceholder is the value of the placeholder m ("{name}",
// "{name:url}" or "{name:base64url}") in vars, encoded as its form says.
func lookupPlaceholder(m string, vars map[string]string) (string, bool) {
	sub := placeholderRE.FindStringSubmatch(m)
	v, ok := vars[sub[1]]
	if sub[2] == "" || !ok {
		return v, ok
	}
	enc, known := forms[sub[2]]
	if !known {
		return "", false
	}
	return enc(v), true
}

// URLEncode percent-encodes s as JavaScript's encodeURIComponent does
// (and more: only letters, digits and -_.~ stay), so that it fits a query
// parameter or a path segment.
func URLEncode(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// checkPlaceholders reports the first {name} in s that is not allowed.
// Braces around anything but a lower-case identifier are literal text.
func checkPlaceholders(s string, allowed []string) error {
	for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
		if _, ok := forms[m[2]]; m[2] != "" && !ok {
			return fmt.Errorf("unknown placeholder %s: the forms are %s (the URL-encoded value, {%s%s}) and %s (base64url)", m[0], URLForm, m[1], URLForm, Base64URLForm)
		}
		ok := false
		for _, a := range allowed {
			if m[1] == a {
				ok = true
			}
		}
		if !ok {
			names := make([]string, len(allowed))
			for i, a := range allowed {
				names[i] = "{" + a + "}"
			}
			return fmt.Errorf("unknown placeholder %s: use %s (or their URL-encoded form, {name%s})", m[0], orList(names), URLForm)
		}
	}
	return nil
}

// expand replaces every {name} and {name:url} of vars in s.
func expand(s string, vars map[string]string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := lookupPlaceholder(m, vars); ok {
			return v
		}
		return m
	})
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
	if err := checkPlaceholders(arg, allowed); err != nil {
		return st, err
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
	case VerbPress:
		return "a key, e.g. press Enter"
	}
	return "a selector, e.g. " + verb + ` [data-testid="send"]`
}

// checkURLTemplate checks that a goto target is an absolute http(s) URL
// once its placeholders are filled in.
func checkURLTemplate(t string) error {
	sample := expand(t, map[string]string{
		PhURL: "http://127.0.0.1:1", PhServer: "http://127.0.0.1:2/mcp", PhServer2: "http://127.0.0.1:3/mcp", PhNonce: "0123",
		PhPort: "5", PhTool: "t", PhArguments: "{}", PhMarker: "m",
	})
	// Placeholders supplied by a Go hook have no sample: stand in a host.
	sample = placeholderRE.ReplaceAllString(sample, "http://127.0.0.1:4")
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
