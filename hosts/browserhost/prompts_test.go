package browserhost

import (
	"slices"
	"testing"
)

func TestNewPrompts(t *testing.T) {
	btn := func(s string) promptItem { return promptItem{"button", s, false} }
	toast := func(s string) promptItem { return promptItem{"toast", s, false} }
	dialog := func(s string) promptItem { return promptItem{"dialog", s, false} }
	keys := func(items ...promptItem) map[string]int {
		m := map[string]int{}
		for _, it := range items {
			m[it.key()]++
		}
		return m
	}
	for _, c := range []struct {
		name   string
		before map[string]int
		after  []promptItem
		want   []string
	}{
		{"nothing new", keys(btn("Send"), toast("Connected")), []promptItem{btn("Send"), toast("Connected")}, nil},
		{"a toast and its buttons", keys(btn("Send")), []promptItem{btn("Send"), toast("Download 1 file? Download Cancel"), btn("Download"), btn("Cancel")},
			[]string{"toast: Download 1 file? Download Cancel"}},
		{"dialogs before buttons", keys(), []promptItem{btn("Allow"), dialog("Send the app's message? hi Cancel Allow")},
			[]string{"dialog: Send the app's message? hi Cancel Allow"}},
		// A log that grows (the MCP Inspector's Replay, Edit and replay,
		// Pin and Expand on each entry) is no question, whether the page
		// kept its mark or not; a question reusing a button's text comes
		// in a dialog or toast, which counts.
		{"more copies of buttons already shown", keys(btn("Replay"), btn("Pin")), []promptItem{btn("Replay"), btn("Pin"), btn("Replay"), btn("Pin")}, nil},
		{"more copies of marked buttons", keys(), []promptItem{{"button", "Replay", true}, btn("Replay"), btn("Pin")}, []string{"button: Pin"}},
		{"a second question with a button of the same text", keys(btn("Allow")), []promptItem{btn("Allow"), dialog("Let the app call a tool? Allow"), btn("Allow")},
			[]string{"dialog: Let the app call a tool? Allow"}},
		{"a lone new button", keys(btn("Send")), []promptItem{btn("Send"), btn("Approve")}, []string{"button: Approve"}},
		{"an older question of the same text is not new", keys(), []promptItem{{"dialog", "Let the app call a tool? probe", true}, dialog("Let the app call a tool? probe")},
			[]string{"dialog: Let the app call a tool? probe"}},
		{"every old element left out", keys(), []promptItem{{"toast", "Download 1 file?", true}, {"button", "Download", true}}, nil},
		{"a changed live region", keys(toast("Idle")), []promptItem{toast("Waiting for approval")}, []string{"toast: Waiting for approval"}},
		{"bounded", keys(), []promptItem{btn("a"), btn("b"), btn("c"), btn("d"), btn("e"), btn("f"), btn("g")},
			[]string{"button: a", "button: b", "button: c", "button: d", "button: e", "button: f"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := newPrompts(c.before, c.after, maxPromptItems); !slices.Equal(got, c.want) {
				t.Errorf("newPrompts = %q, want %q", got, c.want)
			}
		})
	}
}
