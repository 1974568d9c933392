package selftest

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// CoverRun is one run of the grouped scope: the reference host holding
// Defects, over the whole catalogue, and the areas each of them is judged
// on there (Judged, per defect: areas no other defect of the run reaches,
// not judged for it in an earlier run).
type CoverRun struct {
	Defects []string
	Judged  map[string][]string
}

// CoverRuns packs defects into runs of the whole catalogue so that each
// defect is judged on every area in exactly one run where no other defect
// of that run reaches the area (reach: the areas of the checks its entry
// names or lets SKIP). What each defect is judged on is then what the full
// scope sees of it alone, area by area, each area with that defect as its
// only actor; what is left out is only an interaction: a defect whose
// effect in an area another defect of its run hides without showing
// anything itself. A defect of AloneDefects, one whose entry blocks
// every check (BlockedAll), or one whose entry names no check runs
// alone. Defects in one run reach no area in common, so each area's
// checks see one defect at most.
//
// The runs are packed greedily: the defect with the most areas still to
// judge opens a run, and the one that adds the most judged areas joins
// it, up to a size. Every size from 1 to 8 is tried, each with the
// defects in coverTries fixed shuffles (ties broken differently), and the
// fewest runs kept: the same runs every time for the same table. On
// 2026-12-05 (95 defects, 17 areas) that was 62 runs, against 58 for
// grouping by disjoint areas alone (which judged no defect on its
// groupmates' areas) and 95 for the full scope.
func CoverRuns(tab Table, names, areas []string) []CoverRun {
	return coverAreas(names, areas, apart, func(d string) []string {
		var out []string
		for _, g := range reach(tab, d) {
			out = append(out, strings.TrimSuffix(g, "/*"))
		}
		return out
	}, func(d string) bool {
		e := tab.Defects[d]
		return len(e.touched()) == 0 || e.BlockedAll != "" || slices.Contains(AloneDefects, d)
	})
}

// ApartDefects are pairs of defects that reach no area in common but,
// together, change a verdict neither changes alone: they never share a
// run (the run would show a problem, and its members would run again
// alone). Found by the grouped scope's first run, 2026-12-05: with the
// listing's _meta.ui ignored, the View falls back to the default CSP, and
// with that default loose, negotiation/ui-meta-listing-fallback cannot
// tell the declared origin from an undeclared one and SKIPs where
// ui-meta-listing-ignored alone makes it FAIL; its run's four members ran
// again alone.
var ApartDefects = [][2]string{{"default-csp-loose", "ui-meta-listing-ignored"}}

// apart reports whether ApartDefects keeps a and b out of one run.
func apart(a, b string) bool {
	return slices.ContainsFunc(ApartDefects, func(p [2]string) bool { return p == [2]string{a, b} || p == [2]string{b, a} })
}

// coverAreas is CoverRuns for any names, each with the areas it reaches
// (reach) and whether it must run alone (solo), two of which apart keeps
// out of one run (nil: none); the specificity pass packs variations with
// it (CoveredSets).
func coverAreas(names, areas []string, apart func(a, b string) bool, reach func(string) []string, solo func(string) bool) []CoverRun {
	all := slices.Clone(areas)
	for _, d := range names {
		for _, a := range reach(d) {
			if !slices.Contains(all, a) {
				all = append(all, a)
			}
		}
	}
	sort.Strings(all)
	if len(all) > 64 {
		// More areas than a set here holds: every one alone (the full
		// scope's runs) is a covering too.
		out := make([]CoverRun, len(names))
		for i, d := range names {
			out[i] = CoverRun{Defects: []string{d}, Judged: map[string][]string{d: all}}
		}
		return out
	}
	if apart == nil {
		apart = func(string, string) bool { return false }
	}
	c := cover{names: names, reach: map[string]uint64{}, full: 1<<len(all) - 1, solo: map[string]bool{}, apart: apart}
	for _, d := range names {
		for _, a := range reach(d) {
			c.reach[d] |= 1 << slices.Index(all, a)
		}
		c.solo[d] = solo(d)
	}
	var best []coverRun
	// Size 1 is every one alone: a covering never takes more runs than
	// the full scope.
	for size := 1; size <= 8; size++ {
		for try := range coverTries {
			order := slices.Clone(names)
			rand.New(rand.NewPCG(uint64(try), 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			if runs := c.greedy(order, size); best == nil || len(runs) < len(best) {
				best = runs
			}
		}
	}
	out := make([]CoverRun, len(best))
	for i, r := range best {
		out[i] = CoverRun{Defects: r.defects, Judged: map[string][]string{}}
		for k, d := range r.defects {
			for b, a := range all {
				if r.judged[k]&(1<<b) != 0 {
					out[i].Judged[d] = append(out[i].Judged[d], a)
				}
			}
		}
	}
	return out
}

// coverTries is how many orders of the defects CoverRuns packs from, per
// run size.
const coverTries = 30

// cover is CoverRuns' problem: areas as bits.
type cover struct {
	names []string
	reach map[string]uint64
	full  uint64
	solo  map[string]bool
	apart func(a, b string) bool
}

type coverRun struct {
	defects []string
	judged  []uint64 // per defect, the areas judged in this run
}

// greedy packs runs of at most size defects, order breaking ties.
func (c cover) greedy(order []string, size int) []coverRun {
	unseen := map[string]uint64{}
	for _, d := range order {
		unseen[d] = c.full
	}
	// judged is what each member of run would be judged on: the areas it
	// has still to be judged on that no other member reaches.
	judged := func(run []string) ([]uint64, int) {
		out := make([]uint64, len(run))
		n := 0
		for i, m := range run {
			var others uint64
			for j, o := range run {
				if j != i {
					others |= c.reach[o]
				}
			}
			out[i] = unseen[m] &^ others
			n += bits.OnesCount64(out[i])
		}
		return out, n
	}
	var runs []coverRun
	for {
		var open []string
		for _, d := range order {
			if unseen[d] != 0 {
				open = append(open, d)
			}
		}
		if len(open) == 0 {
			return runs
		}
		sort.SliceStable(open, func(i, j int) bool {
			return bits.OnesCount64(unseen[open[i]]) > bits.OnesCount64(unseen[open[j]])
		})
		run := []string{open[0]}
		reached := c.reach[open[0]]
		for !c.solo[open[0]] && len(run) < size {
			// What each member would still be judged on, and so what a
			// joining defect e adds: its own areas outside the run's
			// reach, less what it hides from the members.
			now, _ := judged(run)
			pick, gain := "", 0
			for _, e := range open {
				if c.solo[e] || c.reach[e]&reached != 0 || slices.Contains(run, e) ||
					slices.ContainsFunc(run, func(m string) bool { return c.apart(m, e) }) {
					continue
				}
				g := bits.OnesCount64(unseen[e] &^ reached)
				for _, j := range now {
					g -= bits.OnesCount64(j & c.reach[e])
				}
				if g > gain {
					pick, gain = e, g
				}
			}
			if pick == "" {
				break
			}
			run = append(run, pick)
			reached |= c.reach[pick]
		}
		// A member left with nothing to be judged on only hides areas from
		// the others: it leaves the run.
		j, _ := judged(run)
		for i := len(run) - 1; i >= 0; i-- {
			if j[i] == 0 {
				run = slices.Delete(run, i, i+1)
			}
		}
		j, _ = judged(run)
		for i, m := range run {
			unseen[m] &^= j[i]
		}
		runs = append(runs, coverRun{defects: run, judged: j})
	}
}

// runCovered is the mutation pass of the grouped scope: the runs of
// CoverRuns, each defect judged area by area where it was its run's only
// actor, its judgement whole once its last run has ended. A run where
// any member's judgement shows a problem (or that fails) sends each of
// its members to run again alone over the whole catalogue, and what is
// reported for them is that run: a group never hides or invents a
// problem of its own making.
func runCovered(ctx context.Context, tab Table, names, ids []string, o Options, alone func(string) DefectRun) []DefectRun {
	runs := CoverRuns(tab, names, areasOf(ids))
	var mu sync.Mutex
	left := map[string]int{}
	judged := map[string][]report.Case{}
	mates := map[string][]string{}
	errs := map[string]error{}
	again := map[string][]string{} // defect: what its run showed, when it must run alone
	for _, r := range runs {
		for _, d := range r.Defects {
			left[d]++
			for _, m := range r.Defects {
				if m != d && !slices.Contains(mates[d], m) {
					mates[d] = append(mates[d], m)
				}
			}
		}
	}
	order := map[string]int{}
	for i, id := range ids {
		order[id] = i
	}
	// whole is a defect's judgement once its last run has ended (called
	// with mu held); nil GroupProblems with a problem seen: it runs alone.
	whole := func(d string) DefectRun {
		if seen, ok := again[d]; ok {
			return DefectRun{Defect: d, GroupProblems: slices.Clone(seen)}
		}
		cs := slices.Clone(judged[d])
		sort.SliceStable(cs, func(i, j int) bool { return order[cs[i].ID] < order[cs[j].ID] })
		r := DefectRun{Defect: d, Cases: cs, Err: errs[d], Problems: Problems(tab.Defects[d], cs)}
		if len(mates[d]) > 0 {
			r.Group = slices.Clone(mates[d])
			sort.Strings(r.Group)
		}
		return r
	}
	return runDefects(names, len(runs), o.Pool, func(int) int { return len(ids) }, func(i int) []DefectRun {
		r := runs[i]
		set, err := reference.ParseDefects(r.Defects)
		var hr report.HostRun
		if err == nil {
			hr, err = o.Run(ctx, reference.NewWithDefects(set), runner.Options{Env: o.Env})
		}
		per := map[string][]report.Case{}
		var seen []string
		for _, d := range r.Defects {
			for _, c := range hr.Cases {
				if slices.Contains(r.Judged[d], c.Area()) {
					per[d] = append(per[d], c)
				}
			}
			for _, p := range Problems(tab.Defects[d], per[d]) {
				seen = append(seen, d+": "+p)
			}
			if err != nil {
				seen = append(seen, fmt.Sprintf("%s: %v", d, err))
			}
		}
		mu.Lock()
		var out []DefectRun
		for _, d := range r.Defects {
			judged[d] = append(judged[d], per[d]...)
			if err != nil && errs[d] == nil {
				errs[d] = err
			}
			if len(seen) > 0 && len(r.Defects) > 1 {
				again[d] = append(again[d], seen...)
			}
			if left[d]--; left[d] == 0 {
				out = append(out, whole(d))
			}
		}
		mu.Unlock()
		for i, w := range out {
			if w.GroupProblems != nil {
				out[i] = afterGroup(w.Defect, mates[w.Defect], alone(w.Defect), w.GroupProblems)
			}
		}
		return out
	}, o.Progress)
}
