package selftest

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// Pool is the run slots the self-test's passes share: at most n runs at
// once, and a freed slot goes to the costliest run waiting (the checks it
// will run), the first submitted among equals. Longest first, so that the
// runs still going at the end are short ones: a long run started last
// would hold one slot while the others idle. A pass submits all its runs
// before any is granted, so its own order is the costs', not that of
// goroutines starting.
type Pool struct {
	mu      sync.Mutex
	free    int
	waiting []*ticket
	seq     int
}

type ticket struct {
	cost, seq int
	granted   chan struct{}
}

// NewPool makes a pool of n slots (at least one).
func NewPool(n int) *Pool {
	return &Pool{free: max(n, 1)}
}

// baselineCost puts the defect-free run, which every defect run's verdict
// is compared with, ahead of every other.
const baselineCost = math.MaxInt

// submit queues one run per cost and grants what slots are free.
func (p *Pool) submit(costs ...int) []*ticket {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*ticket, len(costs))
	for i, c := range costs {
		out[i] = &ticket{cost: c, seq: p.seq, granted: make(chan struct{})}
		p.seq++
	}
	p.waiting = append(p.waiting, out...)
	p.grant()
	return out
}

// release frees a slot taken by a granted ticket.
func (p *Pool) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free++
	p.grant()
}

// grant gives each free slot to the costliest waiting run. Called with mu
// held.
func (p *Pool) grant() {
	for p.free > 0 && len(p.waiting) > 0 {
		i := slices.IndexFunc(p.waiting, func(t *ticket) bool {
			return !slices.ContainsFunc(p.waiting, func(o *ticket) bool {
				return o.cost > t.cost || (o.cost == t.cost && o.seq < t.seq)
			})
		})
		t := p.waiting[i]
		p.waiting = slices.Delete(p.waiting, i, i+1)
		p.free--
		close(t.granted)
	}
}

// run runs fn in a slot of its own, ahead of runs of lower cost.
func (p *Pool) run(cost int, fn func()) {
	t := p.submit(cost)[0]
	<-t.granted
	defer p.release()
	fn()
}

// selected counts the ids a run with these globs (area globs "AREA/*";
// none: the whole catalogue) runs: its cost in a Pool.
func selected(ids []string, globs []string) int {
	if len(globs) == 0 {
		return len(ids)
	}
	n := 0
	for _, id := range ids {
		area, _, _ := strings.Cut(id, "/")
		if slices.Contains(globs, area+"/*") {
			n++
		}
	}
	return n
}
