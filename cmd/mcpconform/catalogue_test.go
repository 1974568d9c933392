package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
)

// requireNode skips a test that runs the suite's code under Node where
// there is none (it fails instead under MCPCONFORM_REQUIRE_BROWSER=1, as
// CI sets it).
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := browser.FindNode(""); err != nil {
		if os.Getenv(e2etest.RequireEnv) == "1" {
			t.Fatalf("%v (%s=1)", err, e2etest.RequireEnv)
		}
		t.Skip(err)
	}
}

// `list` reads the catalogue without a browser (the suite's code under
// Node), and its ids are exactly the offline id list that refuses an
// unknown --run before anything starts.
func TestListPrintsTheCatalogue(t *testing.T) {
	requireNode(t)
	// No browser can start: list must not need one.
	stdout, stderr, code := mcpconform(t, []string{"MCPCONFORM_BROWSER=/nonexistent/chromium"}, "list")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	says(t, "list output", stdout, "ID", "CLAUSE", "visibility/app-tool-hidden", "MUST NOT", "readModelToolList,clickTrigger,conversationContains")
	if strings.Contains(stdout, "diag/") {
		t.Errorf("diagnostics leaked into the catalogue:\n%s", stdout)
	}
	js, _, _ := mcpconform(t, nil, "list", "--json")
	var cat struct {
		Tests []struct {
			ID           string
			Requirements []string
		}
	}
	if err := json.Unmarshal([]byte(js), &cat); err != nil {
		t.Fatal(err)
	}
	var live []string
	liveReqs := map[string]string{}
	for _, tc := range cat.Tests {
		live = append(live, tc.ID)
		liveReqs[tc.ID] = strings.Join(tc.Requirements, ",")
	}
	sort.Strings(live)
	offline, err := suite.IDs()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(live, ",") != strings.Join(offline, ",") {
		t.Errorf("suite.IDs() and the catalogue differ:\noffline %v\nlive    %v", offline, live)
	}
	// The requirement matrix (list --requirements) reads the sources: it
	// must see the requirements the suite itself reports.
	declared, err := suite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range declared {
		if got := strings.Join(d.Requirements, ","); got != liveReqs[d.ID] {
			t.Errorf("%s: the sources declare requirements [%s], the catalogue reports [%s]", d.ID, got, liveReqs[d.ID])
		}
	}
}

// docs/catalogue.md is the catalogue `list --json` prints, rendered: a
// check added, removed or changed in the suite makes this fail until the
// page is generated again.
func TestCatalogueDocIsTheSuites(t *testing.T) {
	requireNode(t)
	js, stderr, code := mcpconform(t, nil, "list", "--json")
	if code != 0 {
		t.Fatalf("list --json: exit %d\n%s", code, stderr)
	}
	var list protocol.SuiteList
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	if err := conform.WriteCatalogue(&want, list, conform.CatalogueMarkdown); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "catalogue.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("docs/catalogue.md is not the suite's catalogue: run\n  go run ./cmd/mcpconform list --markdown > docs/catalogue.md")
	}
	for _, tc := range list.Tests {
		if !strings.Contains(string(got), "| `"+tc.ID+"` | "+string(tc.Clause)+" | "+string(tc.Edition)+" | ") {
			t.Errorf("docs/catalogue.md has no row for %s (%s, %s)", tc.ID, tc.Clause, tc.Edition)
		}
	}
}
