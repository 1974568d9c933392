package hostset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/connect"
	"github.com/mcpconform/mcpconform/hosts/generic"
	"github.com/mcpconform/mcpconform/hosts/reference"
)

// Set is the hosts a run tests and how the reference host is altered:
// the one place hosts are constructed by name (Options.NewHost is its
// New).
type Set struct {
	// Names are the hosts to test: built-in (hosts.Register) or host
	// profiles defined in Environ.
	Names []string
	// Defects make the reference host break requirements on purpose, and
	// Variations make it differ within the spec (reference.ParseDefects,
	// reference.ParseVariations); both apply to the reference host only.
	Defects, Variations []string
	// Environ is where host profiles (MCPCONFORM_<PROFILE>_*) are looked
	// up.
	Environ envconfig.Lookuper
	// Connect is how the connect host is built: its operator (--operator)
	// and where its instructions go.
	Connect connect.Options
}

// New builds a fresh host by name.
func (hs Set) New(name string) (hosts.Host, error) {
	if len(hs.Defects)+len(hs.Variations) > 0 && name == "reference" {
		set, err := reference.ParseDefects(hs.Defects)
		if err != nil {
			return nil, err
		}
		vars, err := reference.ParseVariations(hs.Variations)
		if err != nil {
			return nil, err
		}
		return reference.NewWith(set, vars), nil
	}
	if name == connect.Name {
		return connect.New(hs.Connect), nil
	}
	if h, ok := hosts.New(name); ok {
		return h, nil
	}
	if !slices.Contains(generic.Profiles(hs.Environ), name) {
		return nil, fmt.Errorf("unknown host %q: choose one of %s, or define a profile with MCPCONFORM_%s_* variables (docs/profiles.md)", name, strings.Join(hosts.Names(), ", "), strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
	}
	h, err := generic.Lookup(name, hs.Environ)
	if err != nil {
		return nil, fmt.Errorf("host profile %q: %w", name, err)
	}
	return h, nil
}

// Validate checks, without starting anything, that every host can be
// built and is named once, and that defects and variations name known
// ones of the reference host tested alone.
func (hs Set) Validate() error {
	seen := map[string]bool{}
	for _, h := range hs.Names {
		if !hosts.IsBuiltin(h) {
			if _, err := hs.New(h); err != nil {
				return err
			}
		}
		if seen[h] {
			return fmt.Errorf("host %q is listed twice", h)
		}
		seen[h] = true
	}
	onlyReference := len(hs.Names) == 1 && hs.Names[0] == "reference"
	if len(hs.Defects) > 0 {
		if !onlyReference {
			return fmt.Errorf("--host-defect applies to the reference host only, not %q", strings.Join(hs.Names, ","))
		}
		if _, err := reference.ParseDefects(hs.Defects); err != nil {
			return err
		}
	}
	if len(hs.Variations) > 0 {
		if !onlyReference {
			return fmt.Errorf("--host-variation applies to the reference host only, not %q", strings.Join(hs.Names, ","))
		}
		if _, err := reference.ParseVariations(hs.Variations); err != nil {
			return err
		}
	}
	return nil
}
