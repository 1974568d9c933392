// Package runner is the generic dispatch loop between the suite and a host:
// poll the suite, dispatch a parked capability request to the host, resolve
// the result, collect verdicts, and notice when nothing moves any more.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/specreg"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// Sentinel errors. An *InfraError wraps them with the step that failed.
var (
	ErrStalled    = errors.New("conformance suite stalled")
	ErrNoTests    = errors.New("no test matched the selection")
	ErrProtocol   = errors.New("suite protocol version mismatch")
	ErrSuiteLost  = errors.New("lost contact with the suite")
	ErrHostSetup  = errors.New("host setup failed")
	ErrSuiteError = errors.New("the suite misbehaved")
)

// InfraError is an infrastructure failure: the run could not judge the host.
type InfraError struct {
	Step string // what the runner was doing
	Err  error
	// Evidence are files saved when it happened (a screenshot of the page).
	Evidence []string
	// Story is what the fixture server saw of a host whose setup failed
	// (Options.SetupStory): how far it got.
	Story string
}

func (e *InfraError) Error() string {
	s := e.Step + ": " + e.Err.Error()
	if e.Story != "" {
		s += "; " + e.Story
	}
	if len(e.Evidence) > 0 {
		s += " (evidence: " + strings.Join(e.Evidence, ", ") + ")"
	}
	return s
}
func (e *InfraError) Unwrap() error { return e.Err }

// Options configure one run against one host.
type Options struct {
	// Env is what the host is set up with; Run sets its AppTimeout
	// (hosts.AppTimeout) when it has none.
	Env hosts.Env
	// Bridge is how the runner reaches the suite: BridgeEvaluate (or "")
	// binds it in the app frame of a host that offers one and through
	// Relay otherwise; BridgeRelay through Relay alone.
	Bridge string
	// Relay is the run's relay SuiteBridge (nil: none, and only hosts with
	// an app frame can run).
	Relay     Relay
	Selection Selection
	// Stall is how long the run may make no progress (no new result, no new
	// request, no new running test) before it is declared stalled.
	Stall time.Duration
	// PollWait bounds each long-poll; the suite answers sooner on change.
	PollWait time.Duration
	// OnCase is called as each test finishes.
	OnCase func(report.Case)
	// Retries reruns checks that failed, timed out or errored up to this
	// many times; one that then passes is reported flaky.
	Retries int
	// SetupStory, when set, says what the fixture server saw of the host
	// (mcpserver.Observations.SetupStory), for the message of a failed
	// setup: no connection, no call of the suite's tool, no read of its
	// View's resource.
	SetupStory func() string
	// EvidenceDir, when set, receives evidence for every check that did not
	// pass: the JSON-RPC messages of the check and, from hosts that can, a
	// screenshot and console lines. Paths land in Case.Evidence.
	EvidenceDir string
	Logf        func(format string, args ...any)
	// OnPhase, when set, is called as each step of a run ends, with how
	// long it took: PhaseSetup and PhaseTeardown (Run only), PhaseListTests
	// and PhaseRun (Run and Drive). A step that failed is reported too.
	OnPhase func(phase string, d time.Duration)
}

// The steps of a run, as OnPhase names them.
const (
	PhaseSetup     = "setup"
	PhaseListTests = "listTests"
	PhaseRun       = "run"
	PhaseTeardown  = "teardown"
)

// timed calls OnPhase with the time since start.
func (o *Options) timed(phase string, start time.Time) {
	if o.OnPhase != nil {
		o.OnPhase(phase, time.Since(start))
	}
}

func (o *Options) defaults() {
	if o.Stall <= 0 {
		o.Stall = 2 * time.Minute
	}
	if o.PollWait <= 0 {
		o.PollWait = time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// Run sets the host up, runs the selected tests and tears the host down.
// The HostRun is complete (every selected test has a status) even when the
// error is non-nil.
func Run(ctx context.Context, h hosts.Host, o Options) (hr report.HostRun, err error) {
	o.defaults()
	hr = report.HostRun{Host: h.Name(), StartedAt: time.Now(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if o.Env.Browser != nil {
		hr.Browser = o.Env.Browser.Version()
	}
	defer func() { hr.Duration = time.Since(hr.StartedAt) }()
	if o.Env.VideoFile != "" {
		// Runs after teardown, which saves the video.
		defer func() { attachVideo(&hr, h, o) }()
	}
	defer func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		start := time.Now()
		if err := h.Teardown(tctx); err != nil {
			o.Logf("teardown of %s: %v", h.Name(), err)
		}
		o.timed(PhaseTeardown, start)
	}()
	// A crashed browser ends the run at once as an infrastructure failure
	// instead of waiting for every evaluate to time out.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if o.Env.Browser != nil {
		go func() {
			select {
			case <-o.Env.Browser.Gone():
				cancel(hosts.ErrBrowserGone)
			case <-ctx.Done():
			}
		}()
	}
	setupStart := time.Now()
	sb, err := SetUp(ctx, h, o)
	o.timed(PhaseSetup, setupStart)
	if err != nil {
		var ie *InfraError
		errors.As(err, &ie) // SetUp's errors are all *InfraError
		if errors.Is(context.Cause(ctx), hosts.ErrBrowserGone) {
			ie.Err = errors.Join(ErrHostSetup, hosts.ErrBrowserGone)
		}
		ie.Evidence = infraEvidence(ctx, h, o, "setup-failure")
		if o.SetupStory != nil {
			ie.Story = o.SetupStory()
		}
		hr.Infra = ie.Error()
		return hr, ie
	}
	hr, err = Drive(ctx, sb, h, o, hr)
	if cause := context.Cause(ctx); errors.Is(cause, hosts.ErrBrowserGone) {
		err = &InfraError{Step: "running the suite", Err: cause}
		for i, c := range hr.Cases {
			if c.Status == protocol.StatusNotRun {
				hr.Cases[i].Message = "not run: " + cause.Error()
			}
		}
	}
	var ie *InfraError
	if errors.As(err, &ie) && ctx.Err() == nil {
		ie.Evidence = infraEvidence(ctx, h, o, "infra-failure")
		hr.Infra = ie.Error()
	}
	if o.Env.TraceFile != "" {
		// The trace covers the whole run; it is saved at teardown.
		for i, c := range hr.Cases {
			if c.Status != protocol.StatusPass && c.Status != protocol.StatusSkip && c.Status != protocol.StatusNotRun {
				hr.Cases[i].Evidence = append(hr.Cases[i].Evidence, o.Env.TraceFile)
			}
		}
	}
	return hr, err
}

// SetUp sets h up and binds the suite of the app it showed, as Run does:
// in its app frame, or through o.Relay (armed before Setup) when the host
// offers none or o.Bridge is BridgeRelay. A SuiteWatcher is handed the
// bridge. Env.AppTimeout, when zero, is the host's (hosts.AppTimeout). The
// error is an *InfraError naming the step.
func SetUp(ctx context.Context, h hosts.Host, o Options) (hosts.SuiteBridge, error) {
	o.Env.AppTimeout = hosts.AppTimeout(h, o.Env.AppTimeout)
	if o.Env.EvidenceDir == "" {
		o.Env.EvidenceDir = o.hostEvidence(h.Name())
	}
	relayed := viaRelay(h, o)
	if relayed {
		if o.Relay == nil {
			return nil, &InfraError{Step: "setting up host " + h.Name(), Err: errors.Join(ErrHostSetup, ErrNoRelay)}
		}
		// Before Setup: the View the host shows must carry this run's token.
		o.Relay.Arm()
	}
	if err := h.Setup(ctx, o.Env); err != nil {
		return nil, &InfraError{Step: "setting up host " + h.Name(), Err: errors.Join(ErrHostSetup, err)}
	}
	sb, err := bindSuite(ctx, h, o, o.Env.AppTimeout)
	if err != nil {
		step := "setting up host " + h.Name()
		if relayed {
			step = "waiting for the suite on the relay"
		}
		return nil, &InfraError{Step: step, Err: errors.Join(ErrHostSetup, err)}
	}
	if sw, ok := h.(hosts.SuiteWatcher); ok {
		sw.WatchSuite(sb)
	}
	return sb, nil
}

// attachVideo links the host's saved video into hr, or says loudly why
// there is none.
func attachVideo(hr *report.HostRun, h hosts.Host, o Options) {
	st, err := os.Stat(o.Env.VideoFile)
	if err != nil || st.Size() == 0 {
		o.Logf("%s: no video was saved to %s (%v)", h.Name(), o.Env.VideoFile, err)
		return
	}
	hr.Video = o.Env.VideoFile
	if vh, ok := h.(hosts.VideoRecorder); ok {
		hr.VideoStartedAt = vh.VideoStartedAt()
	}
}

// Drive runs the suite through an already set-up bridge. It is Run without
// setup and teardown, for tests and for hosts that manage their own life.
func Drive(ctx context.Context, sb hosts.SuiteBridge, h hosts.Host, o Options, hr report.HostRun) (report.HostRun, error) {
	o.defaults()
	listStart := time.Now()
	list, err := sb.ListTests(ctx)
	o.timed(PhaseListTests, listStart)
	if err != nil {
		ie := &InfraError{Step: "listing the suite's tests", Err: errors.Join(ErrSuiteLost, err)}
		hr.Infra = ie.Error()
		return hr, ie
	}
	if list.ProtocolVersion != protocol.Version {
		ie := &InfraError{Step: "checking the suite", Err: fmt.Errorf("%w: suite speaks %q, runner %q", ErrProtocol, list.ProtocolVersion, protocol.Version)}
		hr.Infra = ie.Error()
		return hr, ie
	}
	hr.SuiteVersion = list.SuiteVersion
	o.PollWait = pollWait(sb, o.PollWait)
	d := &driver{ctx: ctx, sb: sb, h: h, o: o, hr: &hr, results: map[string]protocol.TestResult{}, evidence: map[string][]string{}, meta: map[string]protocol.TestMeta{}, attempts: map[string][]string{}, started: map[string]time.Time{}, interrupted: map[string]bool{}}
	d.judgements = map[string]specreg.Judgement{}
	for _, m := range list.Tests {
		_, d.judgements[m.ID] = o.Selection.Judged(m)
	}
	var ids []string
	for _, m := range o.Selection.Apply(list.Tests) {
		d.selected = append(d.selected, m)
		d.meta[m.ID] = m
		ids = append(ids, m.ID)
	}
	if len(ids) == 0 {
		return hr, ErrNoTests
	}
	defer o.timed(PhaseRun, time.Now())
	if err := d.phase(ids, false); err != nil {
		return d.finish(infraText(err)), err
	}
	// Retries: a check that failed is run again; passing on a retry makes it
	// flaky, which the reports say, not a plain pass.
	for attempt := 1; attempt <= o.Retries; attempt++ {
		var red []string
		for _, id := range ids {
			if r := d.results[id]; isRed(r.Status) {
				red = append(red, id)
			}
		}
		if len(red) == 0 {
			break
		}
		for _, id := range red {
			d.attempts[id] = append(d.attempts[id], fmt.Sprintf("%s: %s", d.results[id].Status, d.results[id].Message))
			delete(d.results, id)
			delete(d.started, id)
		}
		if err := d.phase(red, true); err != nil {
			return d.finish(infraText(err)), err
		}
	}
	return d.finish(""), nil
}

func infraText(err error) string {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "interrupted"
	}
	return err.Error()
}

func isRed(s protocol.Status) bool {
	return s == protocol.StatusFail || s == protocol.StatusTimeout || s == protocol.StatusError
}

// driver holds one Drive's state across phases (first run, remounts, retries).
type driver struct {
	ctx      context.Context
	sb       hosts.SuiteBridge
	h        hosts.Host
	o        Options
	hr       *report.HostRun
	selected []protocol.TestMeta
	meta     map[string]protocol.TestMeta
	results  map[string]protocol.TestResult
	evidence map[string][]string
	attempts map[string][]string // earlier failed attempts, for flaky reports
	// started is when each check started, as the runner saw it: when a
	// poll first showed it running, or its end less its duration when
	// that is earlier (a check can start and end between two polls).
	started map[string]time.Time
	// judgements say how the judged edition's text judges each check: its
	// verdict messages cite that text (specreg.Recite).
	judgements map[string]specreg.Judgement
	// openTool is what the run learnt of the driver's openTool.
	openTool openToolRecord
	// interrupted are the checks a remount of the app interrupted once
	// (they run again in the new View).
	interrupted map[string]bool
}

// maxRemounts bounds how often a host may restart the app before the run
// gives up on it.
const maxRemounts = 3

// phase starts the suite on ids and services it until it is done. When the
// host reloads or remounts the app (the suite's instance changes), the check
// that was running is an ERROR and the suite is started again on the checks
// not yet finished.
func (d *driver) phase(ids []string, retry bool) error {
	if err := d.sb.Start(d.ctx, ids); err != nil {
		return &InfraError{Step: "starting the suite", Err: errors.Join(ErrSuiteLost, err)}
	}
	instance, running := "", ""
	remounts, lastSeq, malformed := 0, 0, 0
	lastProgress, progressKey := time.Now(), ""
	// next is the suite's change that came back with the last resolve.
	var next *protocol.Poll
	for {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		var p protocol.Poll
		var err error
		if next != nil {
			p, next = *next, nil
		} else {
			p, err = d.sb.Poll(d.ctx, d.o.PollWait)
		}
		if err != nil && errors.Is(err, hosts.ErrMalformed) {
			// A garbled answer can be a one-off (a page mid-reload); a page
			// that keeps answering garbage cannot be judged.
			if malformed++; malformed < 3 {
				continue
			}
			if running != "" {
				d.record(protocol.TestResult{ID: running, Status: protocol.StatusError, Message: "harness: the page answered the runner with malformed data: " + err.Error()}, retry)
			}
			return &InfraError{Step: describe("polling the suite", protocol.Poll{RunningID: running}), Err: err}
		}
		malformed = 0
		if err != nil {
			if d.ctx.Err() != nil {
				return d.ctx.Err()
			}
			return &InfraError{Step: describe("polling the suite", protocol.Poll{RunningID: running}), Err: errors.Join(ErrSuiteLost, err)}
		}
		if instance == "" && p.State != protocol.StateIdle {
			instance = p.Instance
		} else if p.Instance != instance || p.State == protocol.StateIdle {
			// The host reloaded or replaced the app iframe: a new suite.
			// An idle suite is one too, even as the first poll's: Start
			// reached the suite that answered it, and the host replaced
			// that one before this poll.
			remounts++
			if running != "" {
				// The check had the View it was judging taken away: a
				// host may render a View again (ext-apps lets it: the
				// fresh View initializes and gets its data anew), so it
				// runs again in the new one, once; interrupted again,
				// it is the ERROR. Before, the first interruption was:
				// a red on a legal host whenever its re-render fell
				// during a check rather than between two.
				if _, done := d.results[running]; !done {
					if d.interrupted[running] {
						d.record(protocol.TestResult{ID: running, Status: protocol.StatusError,
							Message: "harness: the host reloaded or remounted the app iframe during this check, twice, so it could not finish"}, retry)
					} else {
						d.interrupted[running] = true
					}
				}
			}
			if remounts > maxRemounts {
				return &InfraError{Step: "running the suite", Err: fmt.Errorf("%w: the host restarted the app %d times", ErrSuiteLost, remounts)}
			}
			var rest []string
			for _, id := range ids {
				if _, done := d.results[id]; !done {
					rest = append(rest, id)
				}
			}
			during := fmt.Sprintf("during %q", running)
			if running == "" {
				during = "between checks"
			}
			d.o.Logf("the app was reloaded %s (suite instance %q, now %q, %s); restarting the suite on %d remaining check(s)", during, instance, p.Instance, p.State, len(rest))
			if len(rest) == 0 {
				return nil
			}
			if err := d.sb.Start(d.ctx, rest); err != nil {
				return &InfraError{Step: "restarting the suite after the app was reloaded", Err: errors.Join(ErrSuiteLost, err)}
			}
			instance, running, lastSeq = "", "", 0
			lastProgress = time.Now()
			continue
		}
		if p.RunningID != "" && p.RunningID != running {
			if _, done := d.results[p.RunningID]; !done {
				if _, seen := d.started[p.RunningID]; !seen {
					d.started[p.RunningID] = time.Now()
				}
			}
		}
		running = p.RunningID
		for _, r := range p.Results {
			if _, ok := d.meta[r.ID]; !ok || !slices.Contains(ids, r.ID) {
				continue // not asked for in this phase: the page is untrusted
			}
			if _, seen := d.results[r.ID]; seen {
				continue
			}
			d.record(r, retry)
		}
		d.hostFacts(p)
		if p.State == protocol.StateDone {
			return nil
		}
		if p.Request != nil && p.Request.Seq > lastSeq {
			lastSeq = p.Request.Seq
			res := d.dispatch(*p.Request)
			np, err := Answer(d.ctx, d.sb, p.Request.Seq, res, d.o.PollWait)
			if err != nil {
				if d.ctx.Err() != nil {
					return d.ctx.Err()
				}
				return &InfraError{Step: describe("resolving "+string(p.Request.Kind), p), Err: errors.Join(ErrSuiteLost, err)}
			}
			next = np
			lastProgress = time.Now()
		}
		key := fmt.Sprintf("%s|%d|%d", p.RunningID, len(d.results), lastSeq)
		if key != progressKey {
			progressKey, lastProgress = key, time.Now()
		} else if time.Since(lastProgress) > d.o.Stall {
			return &InfraError{Step: describe("waiting for the suite", p), Err: fmt.Errorf("%w: no progress for %s", ErrStalled, d.o.Stall)}
		}
	}
}

// Answer resolves request seq with res. When the bridge can, it long-polls
// in the same trip to the page and returns the suite's next change, which
// the caller uses instead of polling again; nil means poll as usual (also
// when that part of the answer was malformed: the regular poll that follows
// judges the page).
func Answer(ctx context.Context, sb hosts.SuiteBridge, seq int, res protocol.Result, wait time.Duration) (*protocol.Poll, error) {
	rp, ok := sb.(hosts.ResolvePoller)
	if !ok {
		_, err := sb.Resolve(ctx, seq, res)
		return nil, err
	}
	_, p, err := rp.ResolveAndPoll(ctx, seq, res, wait)
	if errors.Is(err, hosts.ErrMalformed) {
		return nil, nil
	}
	return p, err
}

// record keeps one verdict, collects evidence and reports it live.
func (d *driver) record(r protocol.TestResult, retry bool) {
	if !validStatus(r.Status) {
		r.Status, r.Message = protocol.StatusError, fmt.Sprintf("harness: the suite reported an unknown status %q", r.Status)
	}
	if r.Status == protocol.StatusBlocked && len(r.BlockedBy) == 0 {
		r.Status, r.Message = protocol.StatusError, "harness: the suite reported BLOCKED naming no blocking check: "+r.Message
	}
	if prev := d.attempts[r.ID]; len(prev) > 0 && r.Status == protocol.StatusPass {
		r.Message = fmt.Sprintf("flaky: passed on attempt %d after %s", len(prev)+1, strings.Join(prev, "; "))
	}
	d.results[r.ID] = r
	if est := time.Now().Add(-time.Duration(r.DurationMs * float64(time.Millisecond))); r.DurationMs > 0 {
		if s, ok := d.started[r.ID]; !ok || est.Before(s) {
			d.started[r.ID] = est
		}
	}
	if d.o.EvidenceDir != "" && r.Status != protocol.StatusPass && r.Status != protocol.StatusSkip {
		d.evidence[r.ID] = collectEvidence(d.ctx, d.h, d.o, d.hr.Host, r)
	}
	if d.o.OnCase != nil && (!retry || !isRed(r.Status)) {
		d.o.OnCase(d.caseOf(d.meta[r.ID], r))
	}
}

func (d *driver) caseOf(m protocol.TestMeta, r protocol.TestResult) report.Case {
	c := report.Case{TestMeta: m, Status: r.Status, Message: specreg.Recite(r.Message, d.judgements[m.ID]), BlockedBy: r.BlockedBy,
		Duration: time.Duration(r.DurationMs * float64(time.Millisecond)), StartedAt: d.started[m.ID], Evidence: d.evidence[m.ID]}
	if n := len(d.attempts[m.ID]); n > 0 {
		c.Attempts = n + 1
		c.Flaky = r.Status == protocol.StatusPass
	}
	return c
}

func (d *driver) hostFacts(p protocol.Poll) {
	hr := d.hr
	if len(p.HostInfo) > 0 && hr.HostName == "" {
		var hi struct{ Name, Version string }
		if json.Unmarshal(p.HostInfo, &hi) == nil {
			hr.HostName, hr.HostVersion = hi.Name, hi.Version
		}
		hr.HostInfo = p.HostInfo
	}
	if len(p.HostCapabilities) > 0 && len(hr.Capabilities) == 0 {
		hr.Capabilities = p.HostCapabilities
	}
	if len(p.HostContext) > 0 && len(hr.Context) == 0 {
		hr.Context = p.HostContext
	}
}

// finish turns the verdicts into cases, in catalogue order; a selected check
// without a verdict is NOTRUN with the reason.
func (d *driver) finish(infra string) report.HostRun {
	hr := d.hr
	hr.Cases = nil
	for _, m := range d.selected {
		c := report.Case{TestMeta: m, Status: protocol.StatusNotRun, Message: "not run"}
		if infra != "" {
			c.Message = "not run: " + infra
		}
		if r, ok := d.results[m.ID]; ok {
			c = d.caseOf(m, r)
		}
		hr.Cases = append(hr.Cases, c)
	}
	blockDriverErrors(hr.Cases)
	// A block settled may settle the blocks that name it (a chain: a probe
	// check blocked by negotiation/resource-uri-honoured, itself blocked),
	// whatever the catalogue order of the two.
	for unblockPassed(hr.Cases) {
	}
	rootBlockers(hr.Cases)
	hr.Infra = infra
	return *hr
}

// ownFailure rewords a BLOCKED message ("blocked: <missing> (judged by
// <id>) [spec …]") as the check's own failure.
func ownFailure(c report.Case) string {
	by := strings.Join(c.BlockedBy, ", ")
	msg := strings.TrimPrefix(c.Message, "blocked: ")
	own := " (not a cascade: " + by + ", which judges that behaviour, passed in this run)"
	for _, b := range c.BlockedBy {
		if j := " (judged by " + b + ")"; strings.Contains(msg, j) {
			return strings.Replace(msg, j, own, 1)
		}
	}
	return msg + own
}

// blockDriverErrors makes a check that ended in the driver's ERROR
// ("harness: …": it could not act on what the check needed) BLOCKED by the
// checks it requires (protocol.TestMeta.Requires) that went red in the
// same run: the behaviour the check rests on is missing, and that is the
// likelier cause than the driver. Seen 2026-12-06: a host that re-renders
// a View without its tool data (rerender-without-replay) left each probe
// View without its probe's id, the driver could not find one to close or
// stop, and four ERRORs came beside lifecycle/tool-input-once's FAIL. The
// driver's message stays in the check's, for whoever doubts it.
func blockDriverErrors(cases []report.Case) {
	status := map[string]protocol.Status{}
	for _, c := range cases {
		status[c.ID] = c.Status
	}
	for i, c := range cases {
		if c.Status != protocol.StatusError || !strings.HasPrefix(c.Message, "harness: ") {
			continue
		}
		var failed []string
		for _, r := range c.Requires {
			if st := status[r]; st == protocol.StatusFail || st == protocol.StatusTimeout {
				failed = append(failed, r)
			}
		}
		if len(failed) == 0 {
			continue
		}
		by := strings.Join(failed, ", ")
		cases[i].Status = protocol.StatusBlocked
		cases[i].BlockedBy = failed
		cases[i].Message = fmt.Sprintf("blocked: %s, which this check requires, failed in this run; this check could not reach what it tests (%s) (judged by %s)", by, strings.TrimPrefix(c.Message, "harness: "), by)
	}
}

// unblockPassed settles a BLOCKED check by what its blockers ended with
// in this run. Every blocker passed: the behaviour it found missing was
// seen present where it is judged, so its absence here is this check's own
// finding, not a cascade, and must not hide as "not judged": FAIL. Every
// blocker SKIPped: the behaviour's absence was never established (the
// check that judges it could not look either, e.g. a host waiting on its
// user), so BLOCKED would claim a missing behaviour nobody saw missing:
// SKIP, with the blocker's reason. A blocker not selected, or that failed,
// leaves the check BLOCKED.
// It reports whether it settled any.
func unblockPassed(cases []report.Case) bool {
	status, message := map[string]protocol.Status{}, map[string]string{}
	for _, c := range cases {
		status[c.ID], message[c.ID] = c.Status, c.Message
	}
	settled := false
	for i, c := range cases {
		if c.Status != protocol.StatusBlocked || len(c.BlockedBy) == 0 {
			continue
		}
		passed, skipped := true, true
		for _, b := range c.BlockedBy {
			passed = passed && status[b] == protocol.StatusPass
			skipped = skipped && status[b] == protocol.StatusSkip
		}
		switch {
		case passed:
			cases[i].Status = protocol.StatusFail
			cases[i].Message = ownFailure(c)
			cases[i].BlockedBy = nil
			settled = true
		case skipped:
			var why []string
			for _, b := range c.BlockedBy {
				why = append(why, b+" could not judge it either: "+message[b])
			}
			cases[i].Status = protocol.StatusSkip
			cases[i].Message = strings.TrimPrefix(c.Message, "blocked: ") + " (not judged: " + strings.Join(why, "; ") + ")"
			cases[i].BlockedBy = nil
			settled = true
		}
	}
	return settled
}

// rootBlockers names, for a check BLOCKED by checks that are themselves
// BLOCKED, the checks at the roots of the chain: the red the cascade
// comes from, which is what a reader acts on (a probe check whose View
// never initialized is blocked by negotiation/resource-uri-honoured, and
// that one, when its own View initialized without tool-input, by
// lifecycle/tool-input-once). The message keeps the link it went through.
func rootBlockers(cases []report.Case) {
	byID := map[string]report.Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	var roots func(id string, seen map[string]bool, out []string) []string
	roots = func(id string, seen map[string]bool, out []string) []string {
		c, ok := byID[id]
		if !ok || c.Status != protocol.StatusBlocked || len(c.BlockedBy) == 0 || seen[id] {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
			return out
		}
		seen[id] = true
		for _, b := range c.BlockedBy {
			out = roots(b, seen, out)
		}
		return out
	}
	for i, c := range cases {
		if c.Status != protocol.StatusBlocked {
			continue
		}
		var to []string
		for _, b := range c.BlockedBy {
			to = roots(b, map[string]bool{c.ID: true}, to)
		}
		if slices.Equal(to, c.BlockedBy) {
			continue
		}
		cases[i].Message = fmt.Sprintf("%s (%s, itself blocked by %s)", c.Message, strings.Join(c.BlockedBy, ", "), strings.Join(to, ", "))
		cases[i].BlockedBy = to
	}
}

// describe names the running test and pending request for error messages.
func describe(step string, p protocol.Poll) string {
	if p.RunningID != "" {
		step += " (test " + p.RunningID
		if p.Request != nil {
			step += ", pending request " + string(p.Request.Kind)
		}
		step += ")"
	}
	return step
}

func validStatus(s protocol.Status) bool {
	for _, v := range protocol.Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// hostEvidence is the run's evidence directory for host: the runner's
// files and the host's own captures (hosts.Env.EvidenceDir) go there; ""
// when the run keeps no evidence.
func (o Options) hostEvidence(host string) string {
	if o.EvidenceDir == "" {
		return ""
	}
	return filepath.Join(o.EvidenceDir, safeName(host))
}

// infraEvidence saves what the host page looked like when the run failed
// for an infrastructure reason (app never shown, suite stalled).
func infraEvidence(ctx context.Context, h hosts.Host, o Options, base string) []string {
	et, ok := h.(hosts.EvidenceTaker)
	if !ok || o.EvidenceDir == "" {
		return nil
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	paths, err := et.TakeEvidence(ectx, o.hostEvidence(h.Name()), base)
	if err != nil {
		o.Logf("evidence of the failure: %v", err)
	}
	return paths
}

// collectEvidence writes what the run knows about a check that did not pass.
// Failing to collect evidence never changes the verdict; it is logged.
func collectEvidence(ctx context.Context, h hosts.Host, o Options, host string, r protocol.TestResult) []string {
	dir := o.hostEvidence(host)
	base := safeName(strings.ReplaceAll(r.ID, "/", "__"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		o.Logf("evidence for %s: %v", r.ID, err)
		return nil
	}
	var paths []string
	if len(r.Messages) > 0 {
		p := filepath.Join(dir, base+".jsonrpc.json")
		if err := os.WriteFile(p, r.Messages, 0o644); err != nil {
			o.Logf("evidence for %s: %v", r.ID, err)
		} else {
			paths = append(paths, p)
		}
	}
	if et, ok := h.(hosts.EvidenceTaker); ok {
		ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		ps, err := et.TakeEvidence(ectx, dir, base)
		if err != nil {
			o.Logf("evidence for %s: %v", r.ID, err)
		}
		paths = append(paths, ps...)
	}
	return paths
}

// safeName keeps file names to a portable alphabet: ids come from the page.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) > 120 {
		b = b[:120]
	}
	return string(b)
}
