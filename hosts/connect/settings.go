package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/operator"
)

// AppTimeout is --app-timeout's default with --host connect: the person
// adds the server and asks for the tool while the run waits.
const AppTimeout = 10 * time.Minute

// Settings are the `run` options that belong to --host connect, read like
// every run option (MCPCONFORM_* variables, flags winning).
type Settings struct {
	// Operator asks the person at the terminal to do, in the host, what a
	// check needs done; each prompt waits OperatorTimeout.
	Operator        bool          `env:"OPERATOR" flag:"operator"`
	OperatorTimeout time.Duration `env:"OPERATOR_TIMEOUT, default=30s" flag:"operator-timeout"`
	// PublicURL serves the run's fixture servers at this URL, on Listen
	// (behind a tunnel or proxy), with the CSP targets, for a host on
	// another machine, as serve --public-url does.
	PublicURL  string   `env:"PUBLIC_URL" flag:"public-url"`
	Listen     string   `env:"LISTEN" flag:"listen"`
	CSPTargets []string `env:"CSP_TARGETS" flag:"csp-target"`
}

// Check refuses settings that do not fit the run's hosts:
// --operator and --public-url (with --listen and --csp-target) apply to
// --host connect alone. MCPCONFORM_PUBLIC_URL, _LISTEN and _CSP_TARGETS are
// serve's too, so for other hosts they are dropped when they come from the
// environment (a job that exports them for serve) and refused as flags
// (flagSet says which flags the command line set).
func (s *Settings) Check(hostNames []string, flagSet func(string) bool) error {
	only := func(flag string) error {
		for _, n := range hostNames {
			if n != Name {
				return fmt.Errorf("%s applies to --host connect only, not %q", flag, n)
			}
		}
		return nil
	}
	if s.Operator {
		if err := only("--operator"); err != nil {
			return err
		}
	}
	if s.OperatorTimeout <= 0 {
		return fmt.Errorf("--operator-timeout must be a positive duration, got %s", s.OperatorTimeout)
	}
	public := []string{"public-url", "listen", "csp-target"}
	if only("--public-url") != nil && !slices.ContainsFunc(public, flagSet) {
		s.PublicURL, s.Listen, s.CSPTargets = "", "", nil
	}
	if s.PublicURL == "" {
		if s.Listen != "" || len(s.CSPTargets) > 0 {
			return errors.New("--listen and --csp-target go with --public-url")
		}
		return nil
	}
	if err := only("--public-url"); err != nil {
		return fmt.Errorf("%w (a hosted product driven in the browser connects to mcpconform serve --public-url instead: docs/hosted.md)", err)
	}
	return nil
}

// Public are the session's public fixture servers (nil: loopback).
func (s Settings) Public() *fixtures.PublicOptions {
	if s.PublicURL == "" {
		return nil
	}
	return &fixtures.PublicOptions{PublicURL: s.PublicURL, Listen: s.Listen, TargetOrigins: s.CSPTargets}
}

// NewOperator is the person at stdin, prompted on stderr, with --operator
// (nil without it); operator.ErrNoTerminal when stdin is not a terminal.
func (s Settings) NewOperator(stdin io.Reader, stderr io.Writer) (*operator.Operator, error) {
	if !s.Operator {
		return nil, nil
	}
	f, ok := stdin.(*os.File)
	if !ok || !operator.IsTerminal(f) {
		return nil, operator.ErrNoTerminal
	}
	return operator.New(f, stderr, s.OperatorTimeout), nil
}

// ReadSettings reads the settings from environ (the run's MCPCONFORM_*
// variables, with its flags over them); nil reads the defaults.
func ReadSettings(environ hosts.Environ) (Settings, error) {
	var s Settings
	var l envconfig.Lookuper = envconfig.MapLookuper(nil)
	if environ != nil {
		l = environ
	}
	err := envconfig.ProcessWith(context.Background(), &envconfig.Config{Target: &s, Lookuper: envconfig.PrefixLookuper("MCPCONFORM_", l)})
	return s, err
}
