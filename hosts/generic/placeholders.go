package generic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/suggest"
)

// Placeholders every profile may use in STEPS.
const (
	PhURL     = "url"     // the profile's URL
	PhServer  = "server"  // the fixture MCP server (hosts.Env.ServerURL)
	PhServer2 = "server2" // the second fixture MCP server (hosts.Env.SecondServerURL)
	PhNonce   = "nonce"   // a fresh random hex string per run
	PhPort    = "port"    // a free loopback TCP port, chosen per run (for START)
	PhDialog  = "dialog"  // in CONFIRM only: open-link, download or sampling
	// In OPEN_TOOL only: the tool to call and its arguments (a JSON
	// object); {arguments.NAME} is one argument's value.
	PhTool      = "tool"
	PhArguments = "arguments"
	// In CLOSE and CANCEL only: the text the View to act on displays.
	PhMarker = "marker"
	// In the selector of a fill-form step only: the name of the field
	// being filled.
	PhKey = "key"
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

// shapeRE matches what looks like a placeholder: "{", a letter or "_",
// then anything but spaces, braces and quotes up to "}". Every such token
// of a profile must be a placeholder the variable takes: a typo is an
// error, never literal text. JSON ({"a": 1}) and text with spaces in
// braces are not placeholder-shaped. A "$" before it makes it shell syntax
// (${HOME}), left alone.
var shapeRE = regexp.MustCompile(`\$?\{[A-Za-z_][^{}\s"']*\}`)

// grammarRE is a placeholder: {name}, {name.FIELD} (arguments only) and
// either with a :form.
var grammarRE = regexp.MustCompile(`^\{([a-z][a-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_-]*))?(:[a-z0-9]+)?\}$`)

// placeholder is one parsed token.
type placeholder struct {
	name  string // url, server, arguments …
	field string // NAME of {arguments.NAME}, "" otherwise
	form  string // ":url", ":base64url" or ""
}

func parsePlaceholder(tok string) (placeholder, bool) {
	m := grammarRE.FindStringSubmatch(tok)
	if m == nil {
		return placeholder{}, false
	}
	return placeholder{name: m[1], field: m[2], form: m[3]}, true
}

// tokens are the placeholder-shaped tokens of s (start and end offsets),
// shell variables left out.
func tokens(s string) [][]int {
	var out [][]int
	for _, loc := range shapeRE.FindAllStringIndex(s, -1) {
		if s[loc[0]] != '$' {
			out = append(out, loc)
		}
	}
	return out
}

// replaceTokens replaces each placeholder-shaped token of s with what f
// returns for it (the token itself to keep it).
func replaceTokens(s string, f func(tok string) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range tokens(s) {
		b.WriteString(s[last:loc[0]])
		b.WriteString(f(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// lookupPlaceholder is the value of the placeholder token tok in vars,
// encoded as its form says; {arguments.NAME} is that argument of
// vars["arguments"] (a string as is, another value as JSON, "" when the
// call has no such argument).
func lookupPlaceholder(tok string, vars map[string]string) (string, bool) {
	p, ok := parsePlaceholder(tok)
	if !ok {
		return "", false
	}
	v, ok := vars[p.name]
	if !ok {
		return "", false
	}
	if p.field != "" {
		if p.name != PhArguments {
			return "", false
		}
		v = argumentValue(v, p.field)
	}
	if p.form != "" {
		enc, known := forms[p.form]
		if !known {
			return "", false
		}
		v = enc(v)
	}
	return v, true
}

// argumentValue is the argument name of the JSON object args as a form
// field holds it: a string as is, null or absent as "", anything else as
// compact JSON.
func argumentValue(args, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	return fieldText(m[name])
}

// fieldText is a JSON value as text typed into a form field.
func fieldText(raw json.RawMessage) string {
	var s string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case json.Unmarshal(raw, &s) == nil:
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// expand replaces every placeholder of s that vars has a value for.
func expand(s string, vars map[string]string) string {
	return replaceTokens(s, func(tok string) string {
		if v, ok := lookupPlaceholder(tok, vars); ok {
			return v
		}
		return tok
	})
}

// valueLength says how long s is with vars filled in: "N characters",
// followed by "+ {name}" for each placeholder vars has no value for.
func valueLength(s string, vars map[string]string) string {
	var unknown []string
	n := len(replaceTokens(s, func(tok string) string {
		if v, ok := lookupPlaceholder(tok, vars); ok {
			return v
		}
		unknown = append(unknown, tok)
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

// hasPlaceholders reports whether s holds a placeholder-shaped token.
func hasPlaceholders(s string) bool { return len(tokens(s)) > 0 }

// URLEncode percent-encodes s as JavaScript's encodeURIComponent does
// (and more: only letters, digits and -_.~ stay), so that it fits a query
// parameter or a path segment.
func URLEncode(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// onlyIn says where the placeholders that not every variable takes are
// available, for a message about one used elsewhere.
var onlyIn = map[string]string{
	PhTool:      "OPEN_TOOL",
	PhArguments: "OPEN_TOOL",
	PhMarker:    "CLOSE and CANCEL",
	PhDialog:    "CONFIRM",
	PhKey:       "the selector of a fill-form step",
}

// checkPlaceholders reports the first placeholder-shaped token of s that
// is not a placeholder allowed here, with the nearest one it may have
// meant.
func checkPlaceholders(s string, allowed []string) error {
	for _, loc := range tokens(s) {
		tok := s[loc[0]:loc[1]]
		if err := checkPlaceholder(tok, allowed); err != nil {
			return err
		}
	}
	return nil
}

func checkPlaceholder(tok string, allowed []string) error {
	p, parsed := parsePlaceholder(tok)
	_, formOK := forms[p.form]
	switch {
	case parsed && slices.Contains(allowed, p.name) && (p.field == "" || p.name == PhArguments) && (p.form == "" || formOK):
		return nil
	case len(allowed) == 0:
		return fmt.Errorf("%s looks like a placeholder, but this variable takes none (it would be used as literal text): remove the braces", tok)
	}
	hint := ""
	if near, ok := suggest.Nearest(tok, spellings(tok, allowed)); ok {
		hint = " (did you mean " + near + "?)"
	} else if where := onlyIn[p.name]; parsed && where != "" && !slices.Contains(allowed, p.name) {
		hint = fmt.Sprintf(" ({%s} is available in %s only)", p.name, where)
	}
	if parsed && slices.Contains(allowed, p.name) && p.form != "" && !formOK {
		return fmt.Errorf("unknown placeholder %s%s: the forms are %s (the URL-encoded value, {%s%s}) and %s (base64url)", tok, hint, URLForm, p.name, URLForm, Base64URLForm)
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = "{" + a + "}"
	}
	more := ""
	if slices.Contains(allowed, PhArguments) {
		more = ", and {" + PhArguments + ".NAME} for one argument"
	}
	return fmt.Errorf("unknown placeholder %s%s: use %s (or their URL-encoded form, {name%s}%s)", tok, hint, orList(names), URLForm, more)
}

// spellings are the placeholders allowed, in every form, that tok may
// have meant; {arguments.NAME} with tok's own NAME when tok looks like an
// argument ({arguments:delayMs}, {arguments_probe}).
func spellings(tok string, allowed []string) []string {
	var out []string
	for _, a := range allowed {
		out = append(out, "{"+a+"}")
		for f := range forms {
			out = append(out, "{"+a+f+"}")
		}
	}
	inner := strings.Trim(tok, "{}")
	if slices.Contains(allowed, PhArguments) && len(inner) > len(PhArguments)+1 && strings.EqualFold(inner[:len(PhArguments)], PhArguments) {
		out = append(out, "{"+PhArguments+"."+inner[len(PhArguments)+1:]+"}")
	}
	return out
}
