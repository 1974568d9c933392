package selftest

import (
	"slices"
	"sync"
	"testing"
)

// A freed slot goes to the costliest run waiting, the first submitted
// among equals: one slot, so the runs go one at a time, in the order the
// pool grants them, whatever order their goroutines start in.
func TestPoolRunsTheCostliestFirst(t *testing.T) {
	pool := NewPool(1)
	costs := []int{1, 5, 3, 5, 2}
	var mu sync.Mutex
	var order []int
	runAll(len(costs), pool, func(i int) int { return costs[i] }, func(i int) int {
		mu.Lock()
		order = append(order, i)
		mu.Unlock()
		return i
	}, nil)
	if want := []int{1, 3, 2, 4, 0}; !slices.Equal(order, want) {
		t.Errorf("runs went in the order %v (costs %v), want %v: costliest first, the first submitted among equals", order, costs, want)
	}
}

// Two passes on one pool: a run of either, waiting, goes before the
// other's cheaper ones.
func TestPoolSharedByTwoPasses(t *testing.T) {
	pool := NewPool(2)
	// Hold both slots while the passes submit, so that every run waits
	// and the grants follow the costs alone; then free one: the runs go
	// one at a time, in the order of the grants.
	hold := pool.submit(baselineCost, baselineCost)
	<-hold[0].granted
	<-hold[1].granted
	a := pool.submit(10, 2)
	b := pool.submit(7, 30)
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for name, tk := range map[string]*ticket{"a10": a[0], "a2": a[1], "b7": b[0], "b30": b[1]} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-tk.granted
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			pool.release()
		}()
	}
	pool.release()
	wg.Wait()
	if want := []string{"b30", "a10", "b7", "a2"}; !slices.Equal(order, want) {
		t.Errorf("runs went in the order %v, want %v: the costliest waiting first, whichever pass it is of", order, want)
	}
}
