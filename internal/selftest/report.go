package selftest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// RunAndReport is `mcpconform selftest`: Run over tab with o and, with
// specificity, RunSpecificity with o's Env, Run and Scope at the same
// time, the two passes sharing o.Parallel run slots (o.Pool), printing
// each run as it finishes and each pass's report on w (o.Progress is
// replaced). ok is false when a pass found a problem; err is trouble
// running one.
func RunAndReport(ctx context.Context, tab Table, o Options, specificity bool, w io.Writer) (ok bool, err error) {
	start := time.Now()
	if o.Pool == nil {
		o.Pool = NewPool(o.Parallel)
	}
	var mu sync.Mutex // one line at a time from both passes
	o.Progress = func(r DefectRun) { mu.Lock(); PrintDefectRun(w, r); mu.Unlock() }
	type spResult struct {
		sp   Specificity
		err  error
		took time.Duration
	}
	spDone := make(chan spResult, 1)
	if specificity {
		go func() {
			sp, err := RunSpecificity(ctx, SpecificityOptions{Options: Options{Env: o.Env, Pool: o.Pool, Run: o.Run, Scope: o.Scope},
				Progress: func(r VariationRun) { mu.Lock(); PrintVariationRun(w, r); mu.Unlock() }})
			spDone <- spResult{sp, err, time.Since(start)}
		}()
	}
	s, err := Run(ctx, tab, o)
	took := time.Since(start)
	var sr spResult
	if specificity {
		sr = <-spDone
	}
	if err != nil {
		return false, err
	}
	s.Report(w, o.Scope, took)
	if !specificity {
		return s.OK(), nil
	}
	if sr.err != nil {
		return false, sr.err
	}
	sr.sp.Report(w, sr.took)
	return s.OK() && sr.sp.OK(), nil
}

// PrintDefectRun prints one defect run as it finishes: ok or BAD, how many
// checks went red (and how many ended BLOCKED), then the run's error and
// problems.
func PrintDefectRun(w io.Writer, r DefectRun) {
	reds, blocked := 0, 0
	for _, cs := range r.Cases {
		if isRed(cs.Status) {
			reds++
		}
		if cs.Status == protocol.StatusBlocked {
			blocked++
		}
	}
	more := ""
	if blocked > 0 {
		more = fmt.Sprintf(", %d blocked", blocked)
	}
	fmt.Fprintf(w, "%s %-36s %d check(s) red%s\n", mark(r.Problems, r.Err), r.Defect, reds, more)
	printTrouble(w, r.Problems, r.Err)
}

// PrintVariationRun prints one variation run as it finishes: ok or BAD,
// its tally, then the run's error and problems.
func PrintVariationRun(w io.Writer, r VariationRun) {
	fmt.Fprintf(w, "%s variation %-40s %s\n", mark(r.Problems, r.Err), r.Name(), r.Tally())
	printTrouble(w, r.Problems, r.Err)
}

func mark(problems []string, err error) string {
	if len(problems) > 0 || err != nil {
		return "BAD "
	}
	return "ok  "
}

func printTrouble(w io.Writer, problems []string, err error) {
	if err != nil {
		fmt.Fprintf(w, "      run failed: %v\n", err)
	}
	for _, p := range problems {
		fmt.Fprintf(w, "      %s\n", p)
	}
}

// Report prints what the mutation score found wrong and the score line;
// took is how long the runs took.
func (s Summary) Report(w io.Writer, scope Scope, took time.Duration) {
	for _, p := range s.Baseline {
		fmt.Fprintf(w, "defect-free host: %s\n", p)
	}
	for _, id := range s.Missing {
		fmt.Fprintf(w, "not in the table: %s\n", id)
	}
	for _, id := range s.Unproven {
		fmt.Fprintf(w, "unproven: %s\n", id)
	}
	for _, f := range s.FalseFail {
		fmt.Fprintf(w, "false failure: %s\n", f)
	}
	fmt.Fprintf(w, "mutation score: %d/%d checks proven (%.0f%%), %d false failures, %d defects, scope %s, %s\n",
		len(s.Proven), s.Checks, 100*s.Score(), len(s.FalseFail), len(s.Runs), scope, took.Round(time.Second))
	extra := 0
	for _, d := range slices.Sorted(maps.Keys(s.Extra)) {
		extra += len(s.Extra[d])
		fmt.Fprintf(w, "imprecise: %s also turned red %s\n", d, strings.Join(s.Extra[d], ", "))
	}
	fmt.Fprintf(w, "precision: %d/%d defects turn red only the checks they are meant to break (%.0f%%), %d other red checks\n",
		len(s.Runs)-len(s.Extra), len(s.Runs), 100*s.Precision(), extra)
}

// Report prints the specificity's false failures and its score line; took
// is how long the runs took.
func (s Specificity) Report(w io.Writer, took time.Duration) {
	for _, f := range s.FalseFail {
		fmt.Fprintf(w, "false failure: %s\n", f)
	}
	fmt.Fprintf(w, "specificity: %d variations, %d false failures, %s\n", len(s.Runs), len(s.FalseFail), took.Round(time.Second))
}
