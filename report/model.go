// Package report turns the results of a conformance run into the formats CI
// systems read: JUnit XML, TAP version 14, versioned JSON, a Markdown summary
// and a live console stream.
//
// The runner fills a Run; report only reads it, except for the expectations
// marks (Case.Expect, HostRun.Absent, Run.Expectations) that package expectations
// sets. Nothing here knows about browsers, hosts or the suite's wire format
// beyond the protocol types.
package report

import (
	"encoding/json"
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
	// Baseline names the expectations file applied to the run, if any
	// (set by expectations.Apply).
	Expectations string
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
	// Video is the WebM recording of the host page (run --video): absolute,
	// or relative to the directory the run was started in; "" without one.
	// VideoStartedAt is when the recording began: each case's StartedAt
	// less it is where the check starts in the video.
	Video          string
	VideoStartedAt time.Time

	// What the host said about itself, kept verbatim for the JSON report
	// (nil when not observed): the hostInfo of its ui/initialize answer, the
	// capabilities it advertised there, and the host context the suite saw.
	HostInfo     json.RawMessage
	Capabilities json.RawMessage
	Context      json.RawMessage

	// Absent lists the expectations entries for this host that matched no case
	// (set by expectations.Apply). They are tolerated: the check may not have
	// been selected, or may no longer exist.
	Absent []Expectation
}

// Case is one test's outcome together with its metadata.
type Case struct {
	protocol.TestMeta
	Status  protocol.Status
	Message string
	// BlockedBy names the checks judging the behaviour a BLOCKED check
	// found missing (status BLOCKED only).
	BlockedBy []string
	Duration  time.Duration
	// StartedAt is when the check started, as the runner saw it (zero when
	// unknown, as in results read back from JSON without a video).
	StartedAt time.Time
	// Evidence lists files captured for this case (screenshots, DOM or
	// console dumps, traces): absolute, or relative to the directory the run
	// was started in.
	Evidence []string
	// Attempts is how many times the check ran (more than 1 with
	// --retries); Flaky is set when it passed only on a retry.
	Attempts int
	Flaky    bool
	// Expect is the expectations entry covering this case, if any. It is set by
	// expectations.Apply (and expectations.Expectations.Mark for live output) and
	// changes what the status means (see Outcome), never the status itself.
	Expect *Expectation
}

// VideoOffset is where case c starts in the host's video, and false when
// the host has no video or the start is unknown.
func (h HostRun) VideoOffset(c Case) (time.Duration, bool) {
	if h.Video == "" || h.VideoStartedAt.IsZero() || c.StartedAt.IsZero() {
		return 0, false
	}
	return max(c.StartedAt.Sub(h.VideoStartedAt), 0), true
}

// Expectation is one expectations entry: a check that is expected to fail on a
// host, or, with Allow, a known flaky check and the statuses it may have.
type Expectation struct {
	ID     string
	Reason string
	// Allow lists the statuses the entry accepts. Empty means "expected to
	// fail": any failing status (FAIL, TIMEOUT, ERROR) is expected, and a
	// PASS makes the entry stale.
	Allow []protocol.Status
	// Line is where the entry starts in its file (0 when not from a file).
	Line int
}

// Allows reports whether the entry accepts status s.
func (e Expectation) Allows(s protocol.Status) bool {
	if len(e.Allow) == 0 {
		return isFailure(s)
	}
	for _, a := range e.Allow {
		if a == s {
			return true
		}
	}
	return false
}

// Counts tallies statuses.
type Counts struct {
	Passed, Failed, TimedOut, Skipped, NotRun, Errored int
	// Optional counts OPTIONAL: a MAY check found the feature absent.
	Optional int
	// Blocked counts BLOCKED: a check blocked by another check's failure.
	Blocked int
}

// Total is the number of cases counted.
func (c Counts) Total() int {
	return c.Passed + c.Failed + c.TimedOut + c.Skipped + c.NotRun + c.Errored + c.Optional + c.Blocked
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
	case protocol.StatusOptional:
		c.Optional++
	case protocol.StatusBlocked:
		c.Blocked++
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
func (r Run) Count() Counts { return HostRun{Cases: r.cases()}.Count() }

// cases is every case of the run, host after host.
func (r Run) cases() []Case {
	var all []Case
	for _, h := range r.Hosts {
		all = append(all, h.Cases...)
	}
	return all
}
