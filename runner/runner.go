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
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
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
}

func (e *InfraError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *InfraError) Unwrap() error { return e.Err }

// Selection decides which tests run.
type Selection struct {
	Globs []string // id globs (path.Match); empty means all
}

// Match reports whether the test is selected.
func (s Selection) Match(m protocol.TestMeta) bool {
	if len(s.Globs) == 0 {
		return true
	}
	for _, g := range s.Globs {
		if ok, _ := path.Match(g, m.ID); ok || g == m.ID {
			return true
		}
	}
	return false
}

// Options configure one run against one host.
type Options struct {
	Env       hosts.Env
	Selection Selection
	// Stall is how long the run may make no progress (no new result, no new
	// request, no new running test) before it is declared stalled.
	Stall time.Duration
	// PollWait bounds each long-poll; the suite answers sooner on change.
	PollWait time.Duration
	// OnCase is called as each test finishes.
	OnCase func(report.Case)
	// EvidenceDir, when set, receives evidence for every check that did not
	// pass: the JSON-RPC messages of the check and, from hosts that can, a
	// screenshot and console lines. Paths land in Case.Evidence.
	EvidenceDir string
	Logf        func(format string, args ...any)
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
	defer func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := h.Teardown(tctx); err != nil {
			o.Logf("teardown of %s: %v", h.Name(), err)
		}
	}()
	sb, err := h.Setup(ctx, o.Env)
	if err != nil {
		ie := &InfraError{Step: "setting up host " + h.Name(), Err: errors.Join(ErrHostSetup, err)}
		hr.Infra = ie.Error()
		return hr, ie
	}
	hr, err = Drive(ctx, sb, h, o, hr)
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

// Drive runs the suite through an already set-up bridge. It is Run without
// setup and teardown, for tests and for hosts that manage their own life.
func Drive(ctx context.Context, sb hosts.SuiteBridge, h hosts.Host, o Options, hr report.HostRun) (report.HostRun, error) {
	o.defaults()
	list, err := sb.ListTests(ctx)
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
	var selected []protocol.TestMeta
	var ids []string
	for _, m := range list.Tests {
		if o.Selection.Match(m) {
			selected = append(selected, m)
			ids = append(ids, m.ID)
		}
	}
	if len(selected) == 0 {
		return hr, ErrNoTests
	}
	results := map[string]protocol.TestResult{}
	evidence := map[string][]string{}
	finish := func(infra string) report.HostRun {
		for _, m := range selected {
			c := report.Case{TestMeta: m, Status: protocol.StatusNotRun, Message: "not run"}
			if infra != "" {
				c.Message = "not run: " + infra
			}
			if r, ok := results[m.ID]; ok {
				c.Status, c.Message = r.Status, r.Message
				c.Duration = time.Duration(r.DurationMs * float64(time.Millisecond))
				c.Evidence = evidence[m.ID]
			}
			hr.Cases = append(hr.Cases, c)
		}
		hr.Infra = infra
		return hr
	}
	if err := sb.Start(ctx, ids); err != nil {
		ie := &InfraError{Step: "starting the suite", Err: errors.Join(ErrSuiteLost, err)}
		return finish(ie.Error()), ie
	}
	meta := map[string]protocol.TestMeta{}
	for _, m := range selected {
		meta[m.ID] = m
	}

	lastSeq := 0
	lastProgress := time.Now()
	progressKey := ""
	var p protocol.Poll
	for {
		if ctx.Err() != nil {
			return finish("interrupted"), ctx.Err()
		}
		p, err = sb.Poll(ctx, o.PollWait)
		if err != nil {
			if ctx.Err() != nil {
				return finish("interrupted"), ctx.Err()
			}
			ie := &InfraError{Step: describe("polling the suite", p), Err: errors.Join(ErrSuiteLost, err)}
			return finish(ie.Error()), ie
		}
		for _, r := range p.Results {
			if _, seen := results[r.ID]; seen {
				continue
			}
			m, ok := meta[r.ID]
			if !ok {
				continue // not ours: the page is untrusted
			}
			if !validStatus(r.Status) {
				r.Status, r.Message = protocol.StatusError, fmt.Sprintf("harness: the suite reported an unknown status %q", r.Status)
			}
			results[r.ID] = r
			if o.EvidenceDir != "" && r.Status != protocol.StatusPass && r.Status != protocol.StatusSkip {
				evidence[r.ID] = collectEvidence(ctx, h, o, hr.Host, r)
			}
			if o.OnCase != nil {
				o.OnCase(report.Case{TestMeta: m, Status: r.Status, Message: r.Message, Duration: time.Duration(r.DurationMs * float64(time.Millisecond)), Evidence: evidence[r.ID]})
			}
		}
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
		if p.State == protocol.StateDone {
			return finish(""), nil
		}
		if p.Request != nil && p.Request.Seq > lastSeq {
			lastSeq = p.Request.Seq
			res := hosts.Dispatch(ctx, h, *p.Request)
			if _, err := sb.Resolve(ctx, p.Request.Seq, res); err != nil {
				if ctx.Err() != nil {
					return finish("interrupted"), ctx.Err()
				}
				ie := &InfraError{Step: describe("resolving "+string(p.Request.Kind), p), Err: errors.Join(ErrSuiteLost, err)}
				return finish(ie.Error()), ie
			}
			lastProgress = time.Now()
		}
		key := fmt.Sprintf("%s|%d|%d", p.RunningID, len(results), lastSeq)
		if key != progressKey {
			progressKey, lastProgress = key, time.Now()
		} else if time.Since(lastProgress) > o.Stall {
			ie := &InfraError{Step: describe("waiting for the suite", p), Err: fmt.Errorf("%w: no progress for %s", ErrStalled, o.Stall)}
			return finish(ie.Error()), ie
		}
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

// collectEvidence writes what the run knows about a check that did not pass.
// Failing to collect evidence never changes the verdict; it is logged.
func collectEvidence(ctx context.Context, h hosts.Host, o Options, host string, r protocol.TestResult) []string {
	dir := filepath.Join(o.EvidenceDir, safeName(host))
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
