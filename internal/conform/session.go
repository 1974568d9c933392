// Package conform is the orchestration of a conformance run: it brings up
// the fixture MCP servers, a display for a headed browser, the loopback
// allow-list and the browser, then runs hosts against them, concurrently
// and as often as asked, and hands back the results. The CLI (run,
// selftest, bench) and the end-to-end tests start everything through it.
package conform

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/bridge/relay"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// UsageError is a start-up error in the user's input (a host that cannot
// be built, or cannot say which sites it must reach), not the
// infrastructure's.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Options say what to start.
type Options struct {
	// Launch configures the browser; Start fills in Logf (when unset) and
	// appends the hosts' allowed sites to AllowHosts.
	Launch browser.Options
	// Hosts are the names of the hosts this session will run: their
	// allowed sites open the loopback guard, and the fixture record keeps
	// enough calls for all of them.
	Hosts []string
	// NewHost builds a fresh host by name; Run calls it once per host and
	// pass. It is the one place hosts are constructed.
	NewHost func(name string) (hosts.Host, error)
	Logf    func(format string, args ...any)
	// OnPhase, when set, is told how long each start-up step took:
	// PhaseFixtures and PhaseBrowser.
	OnPhase func(phase string, d time.Duration)
	// Public, when set, serves the fixture servers at a public URL
	// (fixtures.StartPublic, as `serve --public-url` does) instead of on
	// loopback: for a host on another machine (--host connect).
	Public *fixtures.PublicOptions
	// Fixtures say where the loopback fixture servers listen (fixed
	// ports) and which other origins may call them (CORS).
	Fixtures fixtures.Options
}

// Start-up steps, as Options.OnPhase names them.
const (
	PhaseFixtures = "fixtures"
	PhaseBrowser  = "browser"
)

// Session is a started set of fixtures and browser.
type Session struct {
	// Fixtures are the loopback fixture servers; with Options.Public,
	// Public serves them instead and Fixtures is nil.
	Fixtures *fixtures.Set
	Public   *fixtures.Public
	// Browser is nil when no host of the session needs one.
	Browser *browser.Browser
	display *browser.Xvfb
	o       Options
}

// allower is a host that must reach sites beyond loopback (a hosted
// product).
type allower = hosts.AllowedHoster

// Start brings the session up. On error everything started is stopped
// again; the error is a *runner.InfraError naming the step, or a
// *UsageError.
func Start(ctx context.Context, o Options) (s *Session, err error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Launch.Logf == nil {
		o.Launch.Logf = o.Logf
	}
	s = &Session{o: o}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	if o.OnPhase == nil {
		o.OnPhase = func(string, time.Duration) {}
	}
	t0 := time.Now()
	if o.Public != nil {
		if s.Public, err = fixtures.StartPublic(ctx, *o.Public); err != nil {
			if errors.Is(err, fixtures.ErrPublicOptions) {
				return s, &UsageError{Err: err}
			}
			return s, &runner.InfraError{Step: "starting the fixture MCP servers at the public URL", Err: err}
		}
	} else if s.Fixtures, err = fixtures.StartWith(ctx, o.Fixtures); err != nil {
		if errors.Is(err, fixtures.ErrPortInUse) {
			// A port the user fixed is theirs to free or change: nothing
			// about the host or the machine's health (exit code 2).
			return s, &UsageError{Err: fmt.Errorf("%w: another process listens there (a run still going, or the host itself); stop it or fix another port", err)}
		}
		if o.Fixtures.Check() != nil {
			return s, &UsageError{Err: err}
		}
		return s, &runner.InfraError{Step: "starting the fixture MCP servers", Err: err}
	}
	o.OnPhase(PhaseFixtures, time.Since(t0))
	// Hosts run at once that share the record (fixed ports, public
	// servers: hostFixtures); each check must still find its run's first
	// calls there.
	s.MainServer().SetKeep(mcpserver.MaxKept * max(len(o.Hosts), 1))
	// Hosted products must be reachable through the loopback guard; a
	// session of hosts that drive no browser (connect) starts none.
	needBrowser := len(o.Hosts) == 0
	for _, name := range o.Hosts {
		h, err := o.NewHost(name)
		if err != nil {
			return s, &UsageError{Err: err}
		}
		// A host that drives nothing (connect) needs no browser: when
		// every host of a session says so, none is launched.
		if bf, ok := h.(hosts.BrowserFree); !ok || !bf.BrowserFree() {
			needBrowser = true
		}
		if a, ok := h.(allower); ok {
			hs, err := a.AllowedHosts()
			if err != nil {
				return s, &UsageError{Err: err}
			}
			o.Launch.AllowHosts = append(o.Launch.AllowHosts, hs...)
		}
	}
	if !needBrowser {
		return s, nil
	}
	if o.Launch.Headed {
		// Headed without a display (CI): start Xvfb before the driver,
		// which inherits DISPLAY.
		if s.display, err = browser.EnsureDisplay(ctx, o.Logf); err != nil {
			return s, &runner.InfraError{Step: "starting a display for --headed", Err: err}
		}
	}
	t0 = time.Now()
	if s.Browser, err = browser.Launch(o.Launch); err != nil {
		return s, &runner.InfraError{Step: "starting the browser", Err: err}
	}
	o.OnPhase(PhaseBrowser, time.Since(t0))
	return s, nil
}

// Env is what a host is set up with in this session; AppTimeout, Logf and
// TraceFile are the caller's.
func (s *Session) Env() hosts.Env {
	env := hosts.Env{Logf: s.o.Logf}
	if s.Browser != nil {
		// A nil *browser.Browser in the interface would not be nil.
		env.Browser, env.Node = s.Browser, s.Browser.Paths.Node
	}
	if s.Public != nil {
		env.ServerURL, env.SecondServerURL = s.Public.ConnectorURL, s.Public.SecondConnectorURL
	} else {
		env.ServerURL, env.SecondServerURL = s.Fixtures.Main.URL, s.Fixtures.Second.URL
	}
	return env
}

// MainServer is the main fixture server, on loopback or at the public URL.
func (s *Session) MainServer() *mcpserver.Server {
	if s.Public != nil {
		return s.Public.MainServer
	}
	return s.Fixtures.MainServer
}

// NewRelay is a relay for one host run on the main fixture server; the
// runner arms it when it reaches the suite that way. Close it when the
// run ends.
func (s *Session) NewRelay() *relay.Relay { return relay.New(s.MainServer().Relay()) }

// A relay.Relay is the runner's relay.
var _ runner.Relay = (*relay.Relay)(nil)

// CheckBridge validates a --bridge value for a run of these hosts: the
// relay binds one host's View at a time (a View's run is the one that was
// waiting when the host called the suite tool), so a relay run has one
// host.
func CheckBridge(bridgeName string, names []string) error {
	switch bridgeName {
	case "", runner.BridgeEvaluate:
		return nil
	case runner.BridgeRelay:
		if len(names) > 1 {
			return fmt.Errorf("--bridge relay runs one host at a time (got %d: %v): the relay tells concurrent hosts' Views apart only by which run was waiting first", len(names), names)
		}
		return nil
	}
	return fmt.Errorf("--bridge must be %s or %s, not %q", runner.BridgeEvaluate, runner.BridgeRelay, bridgeName)
}

// Close stops the browser, the display and the fixtures (nil-safe).
func (s *Session) Close() {
	if s == nil {
		return
	}
	if s.Browser != nil {
		s.Browser.Close()
	}
	if s.display != nil {
		s.display.Close()
	}
	if s.Fixtures != nil {
		s.Fixtures.Close()
	}
	if s.Public != nil {
		s.Public.Close()
	}
}

// RunOptions configure Run.
type RunOptions struct {
	// Runner is the template of every host's runner options; Env is set
	// by Run, and OnCase is wrapped to name the host.
	Runner runner.Options
	// AppTimeout bounds how long a host may take to show the app.
	AppTimeout time.Duration
	// TraceFile names a host's Playwright trace file ("" records none).
	TraceFile func(host string) string
	// VideoFile names a host's video file ("" records none); the browser
	// must be launched with Options.Launch.Video.
	VideoFile func(host string) string
	// OnCase is called as each check of a host ends.
	OnCase func(host string, c report.Case)
	// Repeat runs every host this many times (a soak; at least once);
	// the results are the last pass's. AfterPass is called after each.
	Repeat    int
	AfterPass func(pass int)
	// Bridge is how the runner reaches the suite: runner.BridgeEvaluate
	// (or "") the app frame's evaluate where the host offers one,
	// runner.BridgeRelay the relay alone. Every run gets a relay either
	// way (a host with no app frame is reached through it).
	Bridge string
}

// Run runs the named hosts concurrently, each in its own browser context
// of the one browser, with its own runner, so their results never mix.
// It stops after a pass in which a host failed, or when ctx ends. The
// results hold one HostRun per name, in order, even with an error.
func (s *Session) Run(ctx context.Context, names []string, o RunOptions) ([]report.HostRun, error) {
	hrs := make([]report.HostRun, len(names))
	errs := make([]error, len(names))
	if err := CheckBridge(o.Bridge, names); err != nil {
		for i, name := range names {
			hrs[i] = report.HostRun{Host: name, StartedAt: time.Now(), Infra: err.Error()}
		}
		return hrs, &UsageError{Err: err}
	}
	for pass := 1; pass <= max(o.Repeat, 1); pass++ {
		var wg sync.WaitGroup
		for i, name := range names {
			h, err := s.o.NewHost(name)
			if err != nil {
				hrs[i], errs[i] = report.HostRun{Host: name, StartedAt: time.Now(), Infra: err.Error()}, err
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ro := o.Runner
				env, rl, srv, done, err := s.hostFixtures(ctx, i)
				if err != nil {
					hrs[i], errs[i] = report.HostRun{Host: name, StartedAt: time.Now(), Infra: err.Error()}, err
					return
				}
				defer done()
				ro.Env = env
				ro.Env.AppTimeout = o.AppTimeout
				if ro.Logf != nil {
					ro.Env.Logf = ro.Logf
				}
				if o.TraceFile != nil {
					ro.Env.TraceFile = o.TraceFile(name)
				}
				if o.VideoFile != nil {
					ro.Env.VideoFile = o.VideoFile(name)
				}
				if o.OnCase != nil {
					ro.OnCase = func(c report.Case) { o.OnCase(name, c) }
				}
				ro.Relay, ro.Bridge = rl, o.Bridge
				if srv != nil {
					since := time.Now()
					ro.SetupStory = func() string { return srv.Observations().SetupStory(since) }
				}
				hrs[i], errs[i] = runner.Run(ctx, h, ro)
			}()
		}
		wg.Wait()
		if o.AfterPass != nil {
			o.AfterPass(pass)
		}
		if err := firstError(errs); err != nil || ctx.Err() != nil {
			return hrs, err
		}
	}
	return hrs, nil
}

// hostFixtures are the fixture servers, and a relay on them, for the i-th
// of the hosts run at once, with the main server when it is this
// process's own (nil for a public one); done releases both. Hosts at once must not share a
// fixture server: its record is one for all, and the checks read it as
// their own host's (how many probe resources were read, which calls were
// made), so one host's calls were counted as another's (seen in the
// self-test's runs at once, 2026-12-04). The first host keeps the
// session's servers, whose address was printed; every other gets a set
// of its own, unless the ports are fixed or the servers are public (one
// address for all, which a host was configured with): those share it.
func (s *Session) hostFixtures(ctx context.Context, i int) (hosts.Env, *relay.Relay, *mcpserver.Server, func(), error) {
	env := s.Env()
	if i == 0 || s.Fixtures == nil || s.o.Fixtures.MainPort != 0 || s.o.Fixtures.SecondPort != 0 {
		if i > 0 && s.o.Logf != nil {
			s.o.Logf("hosts run at once share the fixture servers (fixed ports or a public URL): a check that counts the server's record may count another host's calls; run them one at a time for verdicts of their own")
		}
		var srv *mcpserver.Server
		if s.Fixtures != nil && i == 0 {
			// (Shared with the other hosts, its record is not this one's.)
			srv = s.Fixtures.MainServer
		}
		rl := s.NewRelay()
		return env, rl, srv, rl.Close, nil
	}
	fx, err := fixtures.StartWith(ctx, fixtures.Options{CORSOrigins: s.o.Fixtures.CORSOrigins})
	if err != nil {
		return env, nil, nil, nil, &runner.InfraError{Step: "starting the fixture servers of a host run beside others", Err: err}
	}
	env.ServerURL, env.SecondServerURL = fx.Main.URL, fx.Second.URL
	rl := relay.New(fx.MainServer.Relay())
	return env, rl, fx.MainServer, func() { rl.Close(); fx.Close() }, nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
