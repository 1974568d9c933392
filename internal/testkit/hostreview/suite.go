package hostreview

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
	"github.com/mcpconform/mcpconform/runner"
)

// Suite is what a third-party host's e2e test states beside its review.
type Suite struct {
	// Expectations is the host's expectations file, from the
	// repository's root (the test runs two levels below it, in hosts/X).
	Expectations string
	// ThroughDriver are checks judged through the driver's capabilities:
	// each must run.
	ThroughDriver []string
	// Offers and Lacks are capabilities the driver must and must not
	// offer (what the host's page has, and what it has not).
	Offers, Lacks []protocol.Kind
	// Timeout bounds the run.
	Timeout time.Duration
}

// RunSuite runs the whole catalogue once on h, a fresh host, and holds
// the run to r and s: the expectations list exactly the reviewed host
// bugs, every check ends as reviewed, the driver offers and lacks what s
// says, and the run passes the expectations' gate. It returns the run for
// the host's own assertions. Once: a verdict that needs a second run to
// settle is a defect to find, not to rerun (the mcp-ui stall was our own
// proxy's, internal/mcpproxy).
func (r Review) RunSuite(t *testing.T, h hosts.Host, s Suite) report.HostRun {
	t.Helper()
	exp, err := expectations.Load(filepath.Join("..", "..", s.Expectations))
	if err != nil {
		t.Fatal(err)
	}
	r.CheckExpectations(t, exp, s.Expectations)

	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	start := time.Now()
	hr, err := runner.Run(ctx, h, runner.Options{Env: e2etest.Env(t, 60*time.Second), Stall: 2 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("suite on %s %s: %d checks in %s", hr.HostName, hr.HostVersion, len(hr.Cases), time.Since(start).Round(time.Millisecond))

	seen := r.CheckCases(t, hr.Cases)
	for _, id := range s.ThroughDriver {
		if !seen[id] {
			t.Errorf("%s, judged through the driver's capabilities, did not run", id)
		}
	}
	for _, k := range s.Offers {
		if !hosts.Supports(h, k) {
			t.Errorf("the %s driver does not offer %s", h.Name(), k)
		}
	}
	for _, k := range s.Lacks {
		if hosts.Supports(h, k) {
			t.Errorf("the %s driver offers %s, which the host does not have", h.Name(), k)
		}
	}
	Gate(t, hr, exp, s.Expectations)
	return hr
}
