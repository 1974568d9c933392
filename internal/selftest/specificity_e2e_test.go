package selftest_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/selftest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// TestSpecificityOnly runs the specificity pass alone (what TestSelfTest
// runs after the mutation pass), for working on the suite's checks:
// MCPCONFORM_SPECIFICITY=only go test -run TestSpecificityOnly -timeout 30m.
// MCPCONFORM_VARIATIONS=a,b+c limits it to those variation sets;
// MCPCONFORM_SELFTEST=grouped runs the grouped scope's sets (CoveredSets).
func TestSpecificityOnly(t *testing.T) {
	if os.Getenv("MCPCONFORM_SPECIFICITY") != "only" {
		t.Skip("set MCPCONFORM_SPECIFICITY=only (TestSelfTest runs the pass in CI)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	env := e2etest.Env(t, 30*time.Second)
	var sets [][]string
	if v := os.Getenv("MCPCONFORM_VARIATIONS"); v != "" {
		for _, s := range strings.Split(v, ",") {
			sets = append(sets, strings.Split(s, "+"))
		}
	}
	scope := selftest.ScopeFull
	if os.Getenv("MCPCONFORM_SELFTEST") == "grouped" {
		scope = selftest.ScopeGrouped
	}
	checkSpecificitySets(t, ctx, env, scope, sets, nil)
}
