package report

import (
	"strings"
	"unicode/utf8"
)

const (
	esc = 0x1b
	bel = 0x07
)

// sanitize makes text from the page, the browser or Playwright safe for every
// report format. Playwright error texts carry ANSI colour codes, and the suite
// can echo anything a host sends, so nothing reaches a report unfiltered.
//
// In order, it:
//   - removes terminal escape sequences (CSI such as ESC[31m, OSC such as
//     ESC]8;;url BEL, the other string sequences, and two-byte escapes), so
//     "ESC[31m" leaves no "[31m" behind;
//   - turns CR LF and lone CR into LF, because XML parsers normalise line ends
//     in character data but not in escaped attributes: without this a message
//     attribute and its element text could differ;
//   - replaces every rune outside the XML 1.0 Char production with U+FFFD.
//     encoding/xml writes ",cdata" fields unchecked, and a single ESC or NUL
//     there makes the whole report unparsable. DEL and the C1 controls
//     (U+007F-U+009F) are replaced as well: XML 1.0 allows them but
//     discourages them, XML 1.1 forbids them raw, and they are never
//     meaningful in a message. Invalid UTF-8 becomes U+FFFD too.
//
// An escape sequence that is not terminated is not removed; its ESC becomes
// U+FFFD and the rest stays, so a stray ESC cannot swallow the message.
func sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case esc:
			if n := escapeLen(s[i:]); n > 0 {
				i += n
				continue
			}
		case 0x9b: // C1 CSI, the 8-bit form of ESC [
			if n := csiLen(s[i+size:]); n > 0 {
				i += size + n
				continue
			}
		case 0x9d: // C1 OSC, the 8-bit form of ESC ]
			if n := stringSeqLen(s[i+size:]); n > 0 {
				i += size + n
				continue
			}
		case '\r':
			b.WriteByte('\n')
			i += size
			if i < len(s) && s[i] == '\n' {
				i++
			}
			continue
		}
		if (r == utf8.RuneError && size == 1) || !xmlChar(r) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain is the fast path: printable ASCII, tab and LF need no work, and
// that is nearly every message.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t' && c != '\n') || c > 0x7e {
			return false
		}
	}
	return true
}

// xmlChar reports whether r may appear in a report: the XML 1.0 Char
// production minus DEL and the C1 controls (see sanitize).
func xmlChar(r rune) bool {
	switch {
	case r == 0x09, r == 0x0a, r == 0x0d:
		return true
	case r >= 0x20 && r < 0x7f:
		return true
	case r >= 0xa0 && r <= 0xd7ff:
		return true
	case r >= 0xe000 && r <= 0xfffd:
		return true
	case r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

// escapeLen returns the length of the escape sequence at the start of s,
// which begins with ESC, or 0 if there is no complete one. The forms are
// those of ECMA-48: CSI, the string sequences (OSC, DCS, SOS, PM, APC),
// nF sequences (ESC, intermediates, final) and two-byte escapes.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch c := s[1]; {
	case c == '[':
		if n := csiLen(s[2:]); n > 0 {
			return 2 + n
		}
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		if n := stringSeqLen(s[2:]); n > 0 {
			return 2 + n
		}
	case c >= 0x20 && c <= 0x2f:
		j := 2
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			return j + 1
		}
	case c >= 0x30 && c <= 0x7e:
		return 2
	}
	return 0
}

// csiLen returns the length of a CSI body (parameter bytes, intermediate
// bytes, one final byte) at the start of s, or 0 if s does not hold one.
func csiLen(s string) int {
	j := 0
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		return j + 1
	}
	return 0
}

// stringSeqLen returns the length of the body of an OSC-like sequence up to
// and including its terminator (BEL, ESC \ or C1 ST), or 0 if there is none.
// A line break or other C0 control ends the search: terminals abandon the
// sequence there, and a message must not vanish up to some far-off ESC \.
func stringSeqLen(s string) int {
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case c == bel:
			return j + 1
		case c == esc:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			return 0
		case c == 0xc2 && j+1 < len(s) && s[j+1] == 0x9c: // U+009C ST
			return j + 2
		case c < 0x20:
			return 0
		}
	}
	return 0
}

// oneLine folds s onto one line for formats where a line break would end the
// record (TAP test points, console headings): lines are trimmed and joined by
// a single space, and blank lines dropped.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return strings.TrimSpace(s)
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
