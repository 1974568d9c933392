package e2etest

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// Catalogue is the suite's catalogue, read under Node, without a browser.
func Catalogue(t testing.TB) protocol.SuiteList {
	t.Helper()
	node, err := browser.FindNode("")
	if err != nil {
		t.Fatal(err)
	}
	list, err := suite.Catalogue(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// DriverSample is the part of the catalogue that exercises a driver: the
// checks named in also, and for each capability h gives, the first check
// (in catalogue order) that needs it. A check that needs nothing of the
// driver runs the same through any driver of one host; these are the ones
// a driver's mapping of a capability (a step, a selector, a dialog answer)
// can change. CI runs a driver's second route on this sample; the extended
// tests (ExtendedEnv) run the whole catalogue.
func DriverSample(t testing.TB, h hosts.Host, also ...string) runner.Selection {
	t.Helper()
	ids := slices.Clone(also)
	covered := map[string]bool{}
	for _, m := range Catalogue(t).Tests {
		for _, k := range m.Needs {
			if covered[string(k)] || !hosts.Supports(h, k) {
				continue
			}
			covered[string(k)] = true
			if !slices.Contains(ids, m.ID) {
				ids = append(ids, m.ID)
			}
		}
	}
	return runner.Selection{Globs: ids}
}
