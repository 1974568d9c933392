package conform

import (
	"context"
	"io"
	"time"

	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// Plan is a whole conformance run: what to start, which hosts to run and
// how, where the reports go.
type Plan struct {
	Start   Options
	Run     RunOptions
	Reports Reports
	// Expectations marks expected failures, live on the console and in the
	// reports (nil: none).
	Expectations *expectations.Expectations
	// Console shows each check as it ends and the summary (nil: none).
	Console       *report.Console
	Tool, Version string
	// Stdout receives the report that goes to "-".
	Stdout io.Writer
}

// Run carries the plan out: it starts the session, runs every host of
// Start.Hosts, writes every report whatever happened, and prints the
// console's summary. The error is the run's (a *runner.InfraError, a
// *UsageError, runner.ErrNoTests, the context's) or, failing that, a
// report's; judging the finished run is Judge's.
func Run(ctx context.Context, p Plan) (report.Run, error) {
	run := report.Run{Tool: p.Tool, Version: p.Version, StartedAt: time.Now()}
	onCase := p.Run.OnCase
	p.Run.OnCase = func(host string, c report.Case) {
		p.Expectations.Mark(host, &c) // live XFAIL/STALE; the console filters --quiet
		if p.Console != nil {
			p.Console.Case(host, c)
		}
		if onCase != nil {
			onCase(host, c)
		}
	}
	s, runErr := Start(ctx, p.Start)
	if runErr == nil {
		run.Hosts, runErr = s.Run(ctx, p.Start.Hosts, p.Run)
		s.Close()
	}
	run.Duration = time.Since(run.StartedAt)
	if len(run.Hosts) == 0 && runErr != nil {
		for _, name := range p.Start.Hosts {
			run.Hosts = append(run.Hosts, report.HostRun{Host: name, StartedAt: run.StartedAt, Infra: runErr.Error()})
		}
	}
	// Reports are written whatever happened, before the run is judged.
	if err := p.Reports.Write(&run, p.Expectations, p.Stdout); err != nil {
		if p.Start.Logf != nil {
			p.Start.Logf("writing reports: %v", err)
		}
		if runErr == nil {
			runErr = err
		}
	}
	if p.Console != nil {
		p.Console.Summary(run)
	}
	return run, runErr
}
