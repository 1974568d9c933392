package hosts

import (
	"fmt"
	"sort"
	"sync"
)

// The registry of built-in hosts: name → constructor. Each built-in host
// package registers itself in its init function; hosts/builtin imports
// every one of them, so importing hosts/builtin is what makes them known.
// Optional parts of a built-in (the hosts a hosted product's pages load
// from, what `login` needs) are interfaces of the host value:
// AllowedHoster, LoginProfiler.
var registry = struct {
	sync.RWMutex
	m map[string]func() Host
}{m: map[string]func() Host{}}

// Register makes the host name known to --host, `mcpconform hosts` and
// `login`, built by newHost (a fresh, not set up host each call). It
// panics when name is empty or registered twice: both are programming
// errors found at start-up.
func Register(name string, newHost func() Host) {
	if name == "" || newHost == nil {
		panic("hosts: Register needs a name and a constructor")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[name]; dup {
		panic(fmt.Sprintf("hosts: Register called twice for %q", name))
	}
	registry.m[name] = newHost
}

// Names are the registered hosts' names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.m))
	for n := range registry.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsBuiltin reports whether name is a registered host.
func IsBuiltin(name string) bool {
	registry.RLock()
	defer registry.RUnlock()
	_, ok := registry.m[name]
	return ok
}

// New builds the registered host name; false when there is none.
func New(name string) (Host, bool) {
	registry.RLock()
	f, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		return nil, false
	}
	return f(), true
}

// Logins are the registered hosts that `mcpconform login` can log in to
// (their host value is a LoginProfiler), sorted by name.
func Logins() []string {
	var out []string
	for _, n := range Names() {
		if h, _ := New(n); h != nil {
			if _, ok := h.(LoginProfiler); ok {
				out = append(out, n)
			}
		}
	}
	return out
}
