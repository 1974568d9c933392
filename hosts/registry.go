package hosts

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// Params are what a host is built with: the run's settings and the
// person at the terminal, in the manner of wptrunner's per-product
// keyword arguments. Every host is built through New with them; a host
// reads what concerns it and refuses what it cannot honour.
type Params struct {
	// Name is the name the host was asked for (a profile's, for the
	// fallback).
	Name string
	// Environ reads the run's settings: the MCPCONFORM_* variables, with
	// the command line's flags over them (a host reads its own, such as
	// MCPCONFORM_<HOST>_URL). Nil reads nothing.
	Environ Environ
	// Defects and Variations alter a host on purpose (--host-defect,
	// --host-variation: the reference host's); a host that takes none
	// refuses them (Plain does).
	Defects, Variations []string
	// In and Out are the operator's terminal: a host that asks a person
	// (connect --operator) reads answers from In and prompts on Out, and
	// a host's instructions to the person go to Out. Nil Out: the run's
	// log.
	In  io.Reader
	Out io.Writer
}

// Environ is where settings are looked up; envconfig.Lookuper values
// satisfy it.
type Environ interface {
	Lookup(key string) (string, bool)
}

// Getenv is p.Environ as a getenv function ("" for unset).
func (p Params) Getenv(key string) string {
	if p.Environ == nil {
		return ""
	}
	v, _ := p.Environ.Lookup(key)
	return v
}

// ErrUsage marks an error in what the user asked for (a host that does
// not exist, an alteration it does not take, a malformed setting): the
// command exits 2. errors.Is finds it; its text is not in the message.
var ErrUsage = errors.New("usage error")

// UsageError is a usage error worded as fmt.Errorf words it (%w wraps).
func UsageError(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == ErrUsage }

// Constructor builds a fresh host, not set up, from p.
type Constructor func(p Params) (Host, error)

// Plain is the constructor of a host that takes no parameters: it
// refuses defects and variations.
func Plain[H Host](newHost func() H) Constructor {
	return func(p Params) (Host, error) {
		if err := p.Unaltered(); err != nil {
			return nil, err
		}
		return newHost(), nil
	}
}

// Unaltered refuses defects and variations for a host that takes none.
func (p Params) Unaltered() error {
	switch {
	case len(p.Defects) > 0:
		return UsageError("--host-defect applies to the reference host only, not %q", p.Name)
	case len(p.Variations) > 0:
		return UsageError("--host-variation applies to the reference host only, not %q", p.Name)
	}
	return nil
}

// The registry: name → constructor, and the fallback for other names.
var registry = struct {
	sync.RWMutex
	m        map[string]Constructor
	fallback Fallback
}{m: map[string]Constructor{}}

// Fallback builds hosts the registry does not name (env profiles).
type Fallback interface {
	// Names are the names it can build from environ, sorted.
	Names(environ Environ) []string
	// New builds p.Name; an error wrapping ErrUnknown when it has no host
	// of that name.
	New(p Params) (Host, error)
}

// ErrUnknown means no host has the name asked for.
var ErrUnknown = errors.New("unknown host")

// Register makes the host name known to --host, `mcpconform hosts` and
// `login`, built by newHost. It panics when name is empty or registered
// twice: both are programming errors found at start-up.
//
// A command builds a host more than once (to check its parameters before
// anything starts, then once per run): newHost must start nothing and
// take nothing that a second copy would compete for (a goroutine reading
// the terminal, a port); Setup is where a host starts.
func Register(name string, newHost Constructor) {
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

// SetFallback makes f build every name the registry does not have (env
// profiles, hosts/generic).
func SetFallback(f Fallback) {
	registry.Lock()
	defer registry.Unlock()
	registry.fallback = f
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

// Registered reports whether name is a registered host.
func Registered(name string) bool {
	registry.RLock()
	defer registry.RUnlock()
	_, ok := registry.m[name]
	return ok
}

// FallbackNames are the names the fallback can build from environ (the
// env profiles defined there), sorted; none without a fallback.
func FallbackNames(environ Environ) []string {
	registry.RLock()
	f := registry.fallback
	registry.RUnlock()
	if f == nil {
		return nil
	}
	return f.Names(environ)
}

// New builds the host p.Name: a registered one, else the fallback's. An
// unknown name is a usage error that lists the known ones.
func New(p Params) (Host, error) {
	registry.RLock()
	build, ok := registry.m[p.Name]
	f := registry.fallback
	registry.RUnlock()
	if ok {
		return build(p)
	}
	if f != nil {
		h, err := f.New(p)
		if err == nil || !errors.Is(err, ErrUnknown) {
			return h, err
		}
	}
	known := append(Names(), FallbackNames(p.Environ)...)
	return nil, UsageError("%w %q: choose one of %s, or define a profile with MCPCONFORM_%s_* variables (docs/profiles.md)",
		ErrUnknown, p.Name, strings.Join(known, ", "), strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_")))
}

// Logins are the registered hosts that `mcpconform login` can log in to
// (their host value is a LoginProfiler), sorted by name.
func Logins() []string {
	var out []string
	for _, n := range Names() {
		if h, err := New(Params{Name: n}); err == nil {
			if _, ok := h.(LoginProfiler); ok {
				out = append(out, n)
			}
		}
	}
	return out
}
