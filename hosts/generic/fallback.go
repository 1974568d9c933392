package generic

import (
	"fmt"
	"slices"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
)

// init makes env profiles the hosts of every name the registry does not
// have (hosts.SetFallback); hosts/builtin imports this package.
func init() { hosts.SetFallback(fallback{}) }

// fallback builds env profiles by name.
type fallback struct{}

// Names are the profiles defined in environ.
func (fallback) Names(environ hosts.Environ) []string { return Profiles(lookuper(environ)) }

// New builds the profile p.Name from p.Environ: hosts.ErrUnknown when no
// MCPCONFORM_<NAME>_URL defines it, a usage error naming every variable
// to fix when it is defined badly.
func (fallback) New(p hosts.Params) (hosts.Host, error) {
	l := lookuper(p.Environ)
	if !slices.Contains(Profiles(l), p.Name) {
		return nil, fmt.Errorf("%w: no profile %q", hosts.ErrUnknown, p.Name)
	}
	if err := p.Unaltered(); err != nil {
		return nil, err
	}
	h, err := Lookup(p.Name, l)
	if err != nil {
		return nil, hosts.UsageError("host profile %q: %w", p.Name, err)
	}
	return h, nil
}

// lookuper is environ as go-envconfig reads it (nil: an empty one).
func lookuper(environ hosts.Environ) envconfig.Lookuper {
	if environ == nil {
		return envconfig.MapLookuper(nil)
	}
	return environ
}
