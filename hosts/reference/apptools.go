package reference

import (
	"sort"
	"sync"
)

// appToolRegistry holds the tools each shown View provides (draft
// §App-Provided Tools): the host page registers a View's tools once it has
// listed them and drops them when it removes the View (draft L2642: "Tools
// automatically disappear when app iframe is torn down"). The agent's tool
// list (readModelToolList) shows them after the servers' tools.
type appToolRegistry struct {
	mu    sync.Mutex
	views map[string][]string // tool call id of the View → its tool names
	// closed are the tools of Views removed since, for the defect
	// closed-app-tool-answered.
	closed map[string]bool
}

// set replaces the tools of the View of callID; no names forgets the View.
func (r *appToolRegistry) set(callID string, names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(names) == 0 {
		for _, n := range r.views[callID] {
			if r.closed == nil {
				r.closed = map[string]bool{}
			}
			r.closed[n] = true
		}
		delete(r.views, callID)
		return
	}
	if r.views == nil {
		r.views = map[string][]string{}
	}
	r.views[callID] = append([]string(nil), names...)
}

// ids are the registered Views' tool call ids, sorted, so that names and
// viewOf go through the Views in one order; r.mu must be held.
func (r *appToolRegistry) ids() []string {
	ids := make([]string, 0, len(r.views))
	for id := range r.views {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// names is every registered tool name, ordered by View and then as listed.
func (r *appToolRegistry) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, id := range r.ids() {
		out = append(out, r.views[id]...)
	}
	return out
}

// viewOf is the View (its tool call id) that provides the tool name, if a
// shown View does.
func (r *appToolRegistry) viewOf(name string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range r.ids() {
		for _, n := range r.views[id] {
			if n == name {
				return id, true
			}
		}
	}
	return "", false
}

// everRegistered is every tool name a View registered, shown or since
// removed, sorted (the defect app-tools-persisted).
func (r *appToolRegistry) everRegistered() []string {
	r.mu.Lock()
	seen := map[string]bool{}
	for n := range r.closed {
		seen[n] = true
	}
	for _, id := range r.ids() {
		for _, n := range r.views[id] {
			seen[n] = true
		}
	}
	r.mu.Unlock()
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// wasClosed is whether name was a tool of a View since removed (and no
// shown View provides it now).
func (r *appToolRegistry) wasClosed(name string) bool {
	if _, shown := r.viewOf(name); shown {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed[name]
}
