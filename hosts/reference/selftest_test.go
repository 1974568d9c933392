package reference_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

type selftestTable struct {
	Red  map[string][]string `json:"red"`
	Skip map[string][]string `json:"skip"`
}

func loadTable(t *testing.T) selftestTable {
	t.Helper()
	b, err := os.ReadFile("testdata/selftest.json")
	if err != nil {
		t.Fatal(err)
	}
	var tab selftestTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	return tab
}

func isRed(s protocol.Status) bool { return s == protocol.StatusFail || s == protocol.StatusTimeout }

// TestSelfTest proves every check can fail: under each reference-host
// defect exactly the checks the table names go red, and every other check
// stays green. A check the table gives no defect fails the test.
func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite once per defect")
	}
	tab := loadTable(t)
	known := map[string]bool{}
	for _, d := range reference.Defects {
		known[d.Name] = true
	}
	expectRed := map[string][]string{} // defect -> checks
	for check, defects := range tab.Red {
		if len(defects) == 0 {
			t.Errorf("check %s has no defect that turns it red: it is not proven able to fail", check)
		}
		for _, d := range defects {
			if !known[d] {
				t.Errorf("table names unknown defect %q for %s", d, check)
			}
			expectRed[d] = append(expectRed[d], check)
		}
	}
	for _, d := range reference.Defects {
		if len(expectRed[d.Name]) == 0 {
			t.Errorf("defect %s turns no check red in the table", d.Name)
		}
	}

	// The catalogue must match the table exactly: a new check needs a row.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	base, err := runner.Run(ctx, reference.New(), runner.Options{Env: env()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range base.Cases {
		if _, ok := tab.Red[c.ID]; !ok {
			t.Errorf("check %s is missing from testdata/selftest.json", c.ID)
		}
		if c.Status != protocol.StatusPass {
			t.Errorf("defect-free host: %s is %s (%s)", c.ID, c.Status, c.Message)
		}
	}

	names := make([]string, 0, len(expectRed))
	for d := range expectRed {
		names = append(names, d)
	}
	sort.Strings(names)
	// The group returns only when its parallel subtests are done.
	t.Run("defects", func(t *testing.T) {
		for _, d := range names {
			t.Run(d, func(t *testing.T) {
				// Runs share the browser and the fixture servers, each in its
				// own context with its own host backend (-parallel bounds them).
				t.Parallel()
				set, err := reference.ParseDefects([]string{d})
				if err != nil {
					t.Fatal(err)
				}
				hr, err := runner.Run(ctx, reference.NewWithDefects(set), runner.Options{Env: env(), Stall: time.Minute})
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				for _, c := range hr.Cases {
					wantRed := slices.Contains(expectRed[d], c.ID)
					switch {
					case wantRed && !isRed(c.Status):
						t.Errorf("%s: %s, want FAIL or TIMEOUT under %s", c.ID, c.Status, d)
					case !wantRed && isRed(c.Status):
						t.Errorf("%s went red without being expected to (false failure): %s %s", c.ID, c.Status, c.Message)
					case !wantRed && c.Status == protocol.StatusSkip && !slices.Contains(tab.Skip[d], c.ID):
						t.Errorf("%s skipped under %s: %s", c.ID, d, c.Message)
					case !wantRed && c.Status != protocol.StatusPass && c.Status != protocol.StatusSkip:
						t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
					}
				}
			})
		}
	})
}
