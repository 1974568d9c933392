package report

import "testing"

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\twith tab\n", "plain text\twith tab\n"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[1;38;5;196mbold\x1b[m", "bold"},
		{"\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"},
		{"\x1b]8;;https://x.test\x07link\x1b]8;;\x07", "link"},
		{"\x1b]0;title\x1b\\after", "after"},
		{"\x1bPdcs\x1b\\x", "x"},
		{"\x1b(Bcharset", "charset"},
		{"\x1bcreset", "reset"},
		{"\u009b31mc1\u009b0m", "c1"},
		{"a\r\nb\rc", "a\nb\nc"},
		{"nul\x00bel\x07del\x7f", "nul\ufffdbel\ufffddel\ufffd"},
		{"c1\u0085", "c1\ufffd"},
		{"bad utf8 \xff\xfe", "bad utf8 \ufffd\ufffd"},
		{"keep \ufffd é 😀 \U0010FFFD", "keep \ufffd é 😀 \U0010FFFD"},
		{"nonchar \uFFFE", "nonchar \ufffd"},
		{"unterminated \x1b[31", "unterminated \ufffd[31"},
		{"unterminated osc \x1b]8;;url\nnext line", "unterminated osc \ufffd]8;;url\nnext line"},
		{"trailing \x1b", "trailing \ufffd"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"one":                 "one",
		"  a\n\n  b  \r\nc\n": "a b c",
		"no newline  ":        "no newline",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTAPEscape(t *testing.T) {
	if got, want := tapEscape(`a#b\c`), `a\#b\\c`; got != want {
		t.Errorf("tapEscape = %q, want %q", got, want)
	}
}
