// Package report turns the results of a conformance run into the formats CI
// systems read: JUnit XML, TAP version 14, and a live console stream.
//
// The runner fills a Run; report only reads it. Nothing here knows about
// browsers, hosts or the suite's wire format beyond the protocol types.
package report

import (
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// Run is the whole result of one invocation: one HostRun per host.
type Run struct {
	Tool      string // "mcpconform"
	Version   string // the tool's version
	StartedAt time.Time
	Duration  time.Duration
	Hosts     []HostRun
}

// HostRun is the result of running the suite against one host.
type HostRun struct {
	Host         string // profile name, e.g. "reference"
	HostName     string // hostInfo.name from ui/initialize, if seen
	HostVersion  string // hostInfo.version from ui/initialize, if seen
	Browser      string // browser name and version
	Platform     string // GOOS/GOARCH of the runner
	SuiteVersion string
	StartedAt    time.Time
	Duration     time.Duration
	Cases        []Case
	// Infra is set when the run stopped for an infrastructure reason (no
	// browser, app never shown, suite stalled). Cases not reached are NOTRUN.
	Infra string
}

// Case is one test's outcome together with its metadata.
type Case struct {
	protocol.TestMeta
	Status   protocol.Status
	Message  string
	Duration time.Duration
}

// Counts tallies statuses.
type Counts struct {
	Passed, Failed, TimedOut, Skipped, NotRun, Errored int
}

// Total is the number of cases counted.
func (c Counts) Total() int {
	return c.Passed + c.Failed + c.TimedOut + c.Skipped + c.NotRun + c.Errored
}

// Add counts one status.
func (c *Counts) Add(s protocol.Status) {
	switch s {
	case protocol.StatusPass:
		c.Passed++
	case protocol.StatusFail:
		c.Failed++
	case protocol.StatusTimeout:
		c.TimedOut++
	case protocol.StatusSkip:
		c.Skipped++
	case protocol.StatusNotRun:
		c.NotRun++
	case protocol.StatusError:
		c.Errored++
	}
}

// Count tallies the cases of one host.
func (h HostRun) Count() Counts {
	var c Counts
	for _, cs := range h.Cases {
		c.Add(cs.Status)
	}
	return c
}

// Count tallies every host of the run.
func (r Run) Count() Counts {
	var c Counts
	for _, h := range r.Hosts {
		for _, cs := range h.Cases {
			c.Add(cs.Status)
		}
	}
	return c
}
