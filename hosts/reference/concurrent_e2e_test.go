package reference_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// Two hosts run at once in one browser (as --hosts does): each in its own
// context with its own runner, and their results do not mix.
func TestConcurrentHostsDoNotMix(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	broken, _ := reference.ParseDefects([]string{"no-visibility-guard"})
	hostsUnderTest := []*reference.Host{reference.New(), reference.NewWithDefects(broken)}
	sel := runner.Selection{Globs: []string{"visibility/*", "errors/*"}}
	runs := make([]report.HostRun, 2)
	errs := make([]error, 2)
	e := env(t) // here: a skip must come from the test's goroutine
	var wg sync.WaitGroup
	for i, h := range hostsUnderTest {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], errs[i] = runner.Run(ctx, h, runner.Options{Env: e, Selection: sel})
		}()
	}
	// Bounded beyond ctx: a run that does not honour its context fails
	// here instead of at go test's timeout.
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	testwait.Recv(t, ended, 4*time.Minute, "the two runs had not ended after 4 minutes")
	for i, err := range errs {
		if err != nil {
			t.Fatalf("host %d: %v", i, err)
		}
	}
	for i, hr := range runs {
		if len(hr.Cases) == 0 {
			t.Fatalf("host %d ran nothing", i)
		}
		for _, c := range hr.Cases {
			wantFail := i == 1 && c.ID == "visibility/model-only-tool-rejected"
			if wantFail != (c.Status == protocol.StatusFail) || (!wantFail && c.Status != protocol.StatusPass) {
				t.Errorf("host %d (%v): %s is %s", i, hostsUnderTest[i].Defects().List(), c.ID, c.Status)
			}
		}
	}
}
