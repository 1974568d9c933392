package builtin_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/hosts"
	_ "github.com/mcpconform/mcpconform/hosts/builtin"
)

// Every built-in host that drives a browser offers its app frame, so the
// runner binds the suite there (a method made ambiguous by embedding
// would silently send the host through the relay); connect, which drives
// nothing, offers none and needs no browser.
func TestBrowserHostsOfferTheirFrame(t *testing.T) {
	for _, n := range hosts.Names() {
		h, err := hosts.New(hosts.Params{Name: n})
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		_, frame := h.(hosts.FrameBinder)
		bf, free := h.(hosts.BrowserFree)
		free = free && bf.BrowserFree()
		if frame == free {
			t.Errorf("%s: offers its frame %v, needs no browser %v: a browser host must offer its frame, a browser-free one cannot", n, frame, free)
		}
	}
}
