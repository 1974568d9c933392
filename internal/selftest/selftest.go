// Package selftest proves the suite's checks: it runs the whole suite
// against the reference host once without defects (everything must pass)
// and once per switchable defect, and compares which checks went red with
// table.json (check id → the defects that must turn it red). A check with no
// defect is unproven; a check that goes red under a defect the table does not
// name for it is a false failure.
package selftest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

//go:embed table.json
var tableJSON []byte

// Table is table.json.
type Table struct {
	// Red: for each check, every defect that must turn it FAIL or TIMEOUT.
	Red map[string][]string `json:"red"`
	// Skip: for each defect, checks that may SKIP under it because the
	// evidence they need is gone.
	Skip map[string][]string `json:"skip"`
	// Info lists observation-only checks (clause INFO): they cannot fail and
	// are not counted as proven.
	Info []string `json:"info"`
}

// Load parses the embedded table.
func Load() (Table, error) {
	var t Table
	if err := json.Unmarshal(tableJSON, &t); err != nil {
		return t, fmt.Errorf("selftest table: %w", err)
	}
	return t, nil
}

// DefectRun is the outcome under one defect.
type DefectRun struct {
	Defect string
	Cases  []report.Case
	// Problems: expected reds that stayed green, unexpected reds (false
	// failures), undeclared skips, harness errors.
	Problems []string
	Err      error
}

// Summary is the whole self-test.
type Summary struct {
	Checks    int      // checks in the catalogue, INFO excluded
	Proven    []string // checks that went red under at least one of their defects, and only there
	Unproven  []string // checks the table gives no defect, or whose defects never turned them red
	Baseline  []string // problems of the defect-free run
	Runs      []DefectRun
	FalseFail []string // "check under defect: status message"
	Missing   []string // catalogue checks absent from the table
}

// Score is proven / checks.
func (s Summary) Score() float64 {
	if s.Checks == 0 {
		return 0
	}
	return float64(len(s.Proven)) / float64(s.Checks)
}

// OK reports a perfect self-test.
func (s Summary) OK() bool {
	if len(s.Unproven)+len(s.Baseline)+len(s.FalseFail)+len(s.Missing) > 0 {
		return false
	}
	for _, r := range s.Runs {
		if len(r.Problems) > 0 || r.Err != nil {
			return false
		}
	}
	return true
}

// isRed reports whether a defect was detected: FAIL or TIMEOUT, or, for a
// MAY check, OPTIONAL (the optional feature the defect removes is seen
// absent; such a check never FAILs for it).
func isRed(s protocol.Status) bool {
	return s == protocol.StatusFail || s == protocol.StatusTimeout || s == protocol.StatusOptional
}

// Options configure Run.
type Options struct {
	Env      hosts.Env
	Parallel int                                                                               // defect runs at once (default 2)
	Progress func(r DefectRun)                                                                 // called as each defect run finishes
	Run      func(ctx context.Context, h hosts.Host, o runner.Options) (report.HostRun, error) // for tests; default runner.Run
	// Scope limits each defect run to the areas (the part of the id before
	// "/") of the checks the table expects it to turn red: the proof is the
	// same, false failures are looked for in those areas only, and the whole
	// self-test takes a fraction of the time. The defect-free run is always
	// the whole suite. ScopeFull (the default) runs the whole suite per defect.
	Scope Scope
}

// Scope says how much of the suite each defect run covers.
type Scope string

const (
	ScopeFull Scope = "full"
	ScopeArea Scope = "area"
)

// areaGlobs are the run selection for a defect under ScopeArea.
func areaGlobs(checks []string) []string {
	var globs []string
	for _, id := range checks {
		area, _, _ := strings.Cut(id, "/")
		if g := area + "/*"; !slices.Contains(globs, g) {
			globs = append(globs, g)
		}
	}
	sort.Strings(globs)
	return globs
}

// Run performs the self-test.
func Run(ctx context.Context, tab Table, o Options) (Summary, error) {
	if o.Parallel <= 0 {
		o.Parallel = 2
	}
	if o.Run == nil {
		o.Run = runner.Run
	}
	switch o.Scope {
	case "":
		o.Scope = ScopeFull
	case ScopeFull, ScopeArea:
	default:
		return Summary{}, fmt.Errorf("selftest scope %q: want %q or %q", o.Scope, ScopeFull, ScopeArea)
	}
	var s Summary
	known := map[string]bool{}
	for _, d := range reference.Defects {
		known[d.Name] = true
	}
	expectRed := map[string][]string{}
	for check, defects := range tab.Red {
		for _, d := range defects {
			if !known[d] {
				return s, fmt.Errorf("selftest table names unknown defect %q for %s", d, check)
			}
			expectRed[d] = append(expectRed[d], check)
		}
	}

	base, err := o.Run(ctx, reference.New(), runner.Options{Env: o.Env})
	if err != nil {
		return s, fmt.Errorf("defect-free run: %w", err)
	}
	info := map[string]bool{}
	for _, id := range tab.Info {
		info[id] = true
	}
	for _, c := range base.Cases {
		if c.Clause == protocol.ClauseInfo || info[c.ID] {
			continue
		}
		s.Checks++
		if _, ok := tab.Red[c.ID]; !ok {
			s.Missing = append(s.Missing, c.ID)
		}
		if c.Status != protocol.StatusPass {
			s.Baseline = append(s.Baseline, fmt.Sprintf("%s is %s on the defect-free host: %s", c.ID, c.Status, c.Message))
		}
	}

	// Every defect runs, including ones the table names for no check, so
	// that a defect turning something red unexpectedly is seen.
	var names []string
	for _, d := range reference.Defects {
		names = append(names, d.Name)
	}
	runs := runAll(len(names), o.Parallel, func(i int) DefectRun {
		d := names[i]
		r := DefectRun{Defect: d}
		set, _ := reference.ParseDefects([]string{d})
		ro := runner.Options{Env: o.Env}
		if o.Scope == ScopeArea {
			ro.Selection.Globs = areaGlobs(expectRed[d])
		}
		hr, err := o.Run(ctx, reference.NewWithDefects(set), ro)
		r.Cases, r.Err = hr.Cases, err
		for _, c := range hr.Cases {
			want := slices.Contains(expectRed[d], c.ID)
			switch {
			case want && !isRed(c.Status):
				r.Problems = append(r.Problems, fmt.Sprintf("%s: %s, want FAIL or TIMEOUT (%s)", c.ID, c.Status, c.Message))
			case !want && isRed(c.Status):
				r.Problems = append(r.Problems, fmt.Sprintf("%s went red without being expected to (false failure): %s %s", c.ID, c.Status, c.Message))
			case !want && c.Status == protocol.StatusSkip && !slices.Contains(tab.Skip[d], c.ID):
				r.Problems = append(r.Problems, fmt.Sprintf("%s skipped: %s", c.ID, c.Message))
			case !want && c.Status != protocol.StatusPass && c.Status != protocol.StatusSkip:
				r.Problems = append(r.Problems, fmt.Sprintf("%s: %s %s", c.ID, c.Status, c.Message))
			}
		}
		return r
	}, o.Progress)
	s.Runs = runs

	// A check is proven when it went red under every defect the table
	// names for it (and never elsewhere: that shows up as a false failure).
	redUnder := map[string]map[string]bool{}
	for _, r := range runs {
		for _, c := range r.Cases {
			if isRed(c.Status) {
				if redUnder[c.ID] == nil {
					redUnder[c.ID] = map[string]bool{}
				}
				redUnder[c.ID][r.Defect] = true
				if !slices.Contains(tab.Red[c.ID], r.Defect) {
					s.FalseFail = append(s.FalseFail, fmt.Sprintf("%s under %s: %s %s", c.ID, r.Defect, c.Status, c.Message))
				}
			}
		}
	}
	for _, c := range base.Cases {
		if c.Clause == protocol.ClauseInfo || info[c.ID] {
			continue
		}
		defects := tab.Red[c.ID]
		proven := len(defects) > 0
		for _, d := range defects {
			if !redUnder[c.ID][d] {
				proven = false
			}
		}
		if proven {
			s.Proven = append(s.Proven, c.ID)
		} else {
			s.Unproven = append(s.Unproven, c.ID)
		}
	}
	sort.Strings(s.FalseFail)
	return s, nil
}

// runAll runs job for each of n runs, at most parallel at a time, and
// hands each result to progress (one at a time) as it finishes; the
// results keep the runs' order.
func runAll[R any](n, parallel int, job func(i int) R, progress func(R)) []R {
	out := make([]R, n)
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = job(i)
			if progress != nil {
				mu.Lock()
				progress(out[i])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}
