package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/chatgpt"
	"github.com/mcpconform/mcpconform/hosts/claude"
	"github.com/mcpconform/mcpconform/hosts/generic"
	"github.com/mcpconform/mcpconform/hosts/inspector"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// hostFactories lists the built-in hosts by name.
var hostFactories = map[string]func() hosts.Host{
	"reference": func() hosts.Host { return reference.New() },
	"inspector": func() hosts.Host { return inspector.New() },
	"chatgpt":   func() hosts.Host { return chatgpt.New() },
	"claude":    func() hosts.Host { return claude.New() },
}

func traceFile(cfg Config, host string) string {
	if !cfg.Trace {
		return ""
	}
	return filepath.Join(cfg.EvidenceDir, host, "trace.zip")
}

// newHost builds a configured host; cfg was validated.
func newHost(cfg Config, name string) hosts.Host {
	if len(cfg.HostDefects)+len(cfg.HostVariations) > 0 && name == "reference" {
		set, _ := reference.ParseDefects(cfg.HostDefects)
		vars, _ := reference.ParseVariations(cfg.HostVariations)
		return reference.NewWith(set, vars)
	}
	if f, ok := hostFactories[name]; ok {
		return f()
	}
	h, _ := generic.Lookup(name, envconfig.OsLookuper()) // validated
	return h
}

// selection turns --run, --clause, --edition and --shard into a runner
// selection, or says which value is wrong.
func (cfg Config) selection() (runner.Selection, error) {
	sel := runner.Selection{Globs: cfg.Run}
	for _, c := range cfg.Clauses {
		switch strings.ToUpper(strings.TrimSpace(c)) {
		case "MUST":
			sel.Clauses = append(sel.Clauses, protocol.ClauseMust, protocol.ClauseMustNot)
		case "SHOULD":
			sel.Clauses = append(sel.Clauses, protocol.ClauseShould, protocol.ClauseShouldNot)
		case "MAY":
			sel.Clauses = append(sel.Clauses, protocol.ClauseMay)
		case "INFO":
			sel.Clauses = append(sel.Clauses, protocol.ClauseInfo)
		default:
			return sel, fmt.Errorf("--clause %q: use MUST, SHOULD, MAY or INFO (MUST includes MUST NOT, SHOULD includes SHOULD NOT)", c)
		}
	}
	for _, e := range cfg.Editions {
		switch protocol.Edition(strings.TrimSpace(e)) {
		case protocol.EditionStable, protocol.EditionDraft:
			sel.Editions = append(sel.Editions, protocol.Edition(strings.TrimSpace(e)))
		default:
			return sel, fmt.Errorf("--edition %q: use %s or %s", e, protocol.EditionStable, protocol.EditionDraft)
		}
	}
	if cfg.Shard != "" {
		sh, err := runner.ParseShard(cfg.Shard)
		if err != nil {
			return sel, err
		}
		sel.Shard = sh
	}
	return sel, nil
}

// splitList accepts both repeated flags and comma-separated values.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func hostNames() []string {
	var n []string
	for k := range hostFactories {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Config is every setting of `run`, from MCPCONFORM_* variables through
// go-envconfig; flags given on the command line win.
type Config struct {
	Host       string        `env:"HOST, default=reference"`
	JUnit      string        `env:"JUNIT"`
	TAP        string        `env:"TAP"`
	Run        []string      `env:"RUN"`
	Headed     bool          `env:"HEADED"`
	Timeout    time.Duration `env:"TIMEOUT, default=10m"`
	AppTimeout time.Duration `env:"APP_TIMEOUT, default=60s"`
	Stall      time.Duration `env:"STALL, default=2m"`
	Browser    string        `env:"BROWSER"`
	BrowserWS  string        `env:"BROWSER_WS"`
	CDP        string        `env:"CDP"`
	Node       string        `env:"NODE"`
	Quiet      bool          `env:"QUIET"`
	// HostDefects make the reference host break requirements on purpose.
	HostDefects []string `env:"HOST_DEFECTS"`
	// HostVariations make the reference host differ within the spec.
	HostVariations []string `env:"HOST_VARIATIONS"`
	// EvidenceDir receives screenshots, console lines and JSON-RPC
	// messages of checks that did not pass; empty disables evidence.
	EvidenceDir string `env:"EVIDENCE_DIR, default=mcpconform-results/evidence"`
	Trace       bool   `env:"TRACE"`
	Retries     int    `env:"RETRIES"`
	// Hosts runs several hosts at once (overrides Host).
	Hosts        []string `env:"HOSTS"`
	Clauses      []string `env:"CLAUSE"`
	Editions     []string `env:"EDITION"`
	Shard        string   `env:"SHARD"`
	FailOnShould bool     `env:"FAIL_ON_SHOULD, default=true"`
	// Repeat runs the whole suite this many times in one process (a soak)
	// and prints resource figures after each; reports hold the last run.
	Repeat int `env:"REPEAT, default=1"`
}

// hostList is every host this run tests.
func (cfg Config) hostList() []string {
	if len(cfg.Hosts) > 0 {
		return cfg.Hosts
	}
	return []string{cfg.Host}
}

func loadConfig(ctx context.Context, c *cli.Context, lookuper envconfig.Lookuper) (Config, error) {
	var cfg Config
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{
		Target:   &cfg,
		Lookuper: envconfig.PrefixLookuper("MCPCONFORM_", lookuper),
	}); err != nil {
		return cfg, fmt.Errorf("environment: %w", err)
	}
	if c.IsSet("host") {
		cfg.Host = c.String("host")
	}
	if c.IsSet("junit") {
		cfg.JUnit = c.String("junit")
	}
	if c.IsSet("tap") {
		cfg.TAP = c.String("tap")
	}
	if c.IsSet("run") {
		cfg.Run = c.StringSlice("run")
	}
	if c.IsSet("headed") {
		cfg.Headed = c.Bool("headed")
	}
	if c.IsSet("timeout") {
		cfg.Timeout = c.Duration("timeout")
	}
	if c.IsSet("app-timeout") {
		cfg.AppTimeout = c.Duration("app-timeout")
	}
	if c.IsSet("stall") {
		cfg.Stall = c.Duration("stall")
	}
	if c.IsSet("browser") {
		cfg.Browser = c.String("browser")
	}
	if c.IsSet("browser-ws") {
		cfg.BrowserWS = c.String("browser-ws")
	}
	if c.IsSet("cdp") {
		cfg.CDP = c.String("cdp")
	}
	if cfg.BrowserWS != "" && cfg.CDP != "" {
		return cfg, errors.New("--browser-ws and --cdp conflict: connect to one remote browser")
	}
	if c.IsSet("node") {
		cfg.Node = c.String("node")
	}
	if c.IsSet("quiet") {
		cfg.Quiet = c.Bool("quiet")
	}
	if c.IsSet("host-defect") {
		cfg.HostDefects = c.StringSlice("host-defect")
	}
	if c.IsSet("host-variation") {
		cfg.HostVariations = c.StringSlice("host-variation")
	}
	if c.IsSet("evidence-dir") {
		cfg.EvidenceDir = c.String("evidence-dir")
	}
	if c.IsSet("trace") {
		cfg.Trace = c.Bool("trace")
	}
	if c.IsSet("retries") {
		cfg.Retries = c.Int("retries")
	}
	for _, k := range []string{"hosts", "clause", "edition"} {
		if c.IsSet(k) {
			switch k {
			case "hosts":
				cfg.Hosts = splitList(c.StringSlice(k))
			case "clause":
				cfg.Clauses = splitList(c.StringSlice(k))
			case "edition":
				cfg.Editions = splitList(c.StringSlice(k))
			}
		}
	}
	if c.IsSet("shard") {
		cfg.Shard = c.String("shard")
	}
	if c.IsSet("fail-on-should") {
		cfg.FailOnShould = c.Bool("fail-on-should")
	}
	if c.IsSet("host") && c.IsSet("hosts") {
		return cfg, errors.New("--host and --hosts conflict: give the hosts to test with one of them")
	}
	if c.IsSet("repeat") {
		cfg.Repeat = c.Int("repeat")
	}
	if cfg.Repeat < 1 || cfg.Repeat > 1000 {
		return cfg, fmt.Errorf("--repeat must be between 1 and 1000, got %d", cfg.Repeat)
	}
	if cfg.Retries < 0 || cfg.Retries > 10 {
		return cfg, fmt.Errorf("--retries must be between 0 and 10, got %d", cfg.Retries)
	}
	if cfg.Trace && cfg.EvidenceDir == "" {
		return cfg, errors.New("--trace needs an --evidence-dir to write the trace into")
	}
	return cfg, cfg.validate()
}

func (cfg Config) validate() error {
	seen := map[string]bool{}
	for _, h := range cfg.hostList() {
		if _, ok := hostFactories[h]; !ok {
			// Not built in: a profile from MCPCONFORM_<NAME>_* variables.
			if !slices.Contains(generic.Profiles(envconfig.OsLookuper()), h) {
				return fmt.Errorf("unknown host %q: choose one of %s, or define a profile with MCPCONFORM_%s_* variables (docs/profiles.md)", h, strings.Join(hostNames(), ", "), strings.ToUpper(strings.ReplaceAll(h, "-", "_")))
			}
			if _, err := generic.Lookup(h, envconfig.OsLookuper()); err != nil {
				return fmt.Errorf("host profile %q: %w", h, err)
			}
		}
		if seen[h] {
			return fmt.Errorf("host %q is listed twice", h)
		}
		seen[h] = true
	}
	if _, err := cfg.selection(); err != nil {
		return err
	}
	if len(cfg.HostDefects) > 0 {
		if len(cfg.hostList()) != 1 || cfg.hostList()[0] != "reference" {
			return fmt.Errorf("--host-defect applies to the reference host only, not %q", cfg.Host)
		}
		if _, err := reference.ParseDefects(cfg.HostDefects); err != nil {
			return err
		}
	}
	if len(cfg.HostVariations) > 0 {
		if len(cfg.hostList()) != 1 || cfg.hostList()[0] != "reference" {
			return fmt.Errorf("--host-variation applies to the reference host only, not %q", cfg.Host)
		}
		if _, err := reference.ParseVariations(cfg.HostVariations); err != nil {
			return err
		}
	}
	known, _ := suite.IDs()
	for _, g := range cfg.Run {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--run %q is not a valid glob: %v", g, err)
		}
		matched := false
		for _, id := range known {
			if ok, _ := path.Match(g, id); ok || g == id {
				matched = true
				break
			}
		}
		if !matched && len(known) > 0 {
			return fmt.Errorf("--run %q matches no check: see `mcpconform list` for the ids", g)
		}
	}
	for name, d := range map[string]time.Duration{"--timeout": cfg.Timeout, "--app-timeout": cfg.AppTimeout, "--stall": cfg.Stall} {
		if d <= 0 {
			return fmt.Errorf("%s must be a positive duration, got %s", name, d)
		}
	}
	return nil
}

func usage(err error) error { return &exitError{code: ExitUsage, err: err} }

func newApp() *cli.App {
	onUsage := func(c *cli.Context, err error, _ bool) error { return usage(err) }
	app := &cli.App{
		Name:    "mcpconform",
		Usage:   "check an MCP Apps host against the MCP Apps extension (SEP-1865)",
		Version: version,
		// urfave's default handler calls os.Exit before deferred cleanup
		// runs; main maps errors to exit codes instead.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage(fmt.Errorf("unknown command %q: see mcpconform --help", c.Args().First()))
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{runCommand(), listCommand(), serveCommand(), reportCommand(), selftestCommand(), loginCommand(), hostsCommand(), benchCommand()},
	}
	// A flag error inside a subcommand goes to the command's own handler.
	for _, c := range app.Commands {
		c.OnUsageError = onUsage
	}
	return app
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the conformance suite against a host and write reports",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "host", Usage: "host to test (" + strings.Join(hostNames(), ", ") + ") [MCPCONFORM_HOST]", Value: "reference"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML to `FILE` [MCPCONFORM_JUNIT]"},
			&cli.StringFlag{Name: "tap", Usage: "write TAP version 14 to `FILE` (- for stdout) [MCPCONFORM_TAP]"},
			&cli.StringSliceFlag{Name: "run", Usage: "run only tests whose id matches `GLOB` (repeatable, e.g. 'visibility/*') [MCPCONFORM_RUN]"},
			&cli.BoolFlag{Name: "headed", Usage: "show the browser window [MCPCONFORM_HEADED]"},
			&cli.DurationFlag{Name: "timeout", Usage: "limit for the whole run (with --repeat N, for each of the N passes) [MCPCONFORM_TIMEOUT]", Value: 10 * time.Minute},
			&cli.DurationFlag{Name: "app-timeout", Usage: "how long the host may take to show the app [MCPCONFORM_APP_TIMEOUT]", Value: 60 * time.Second},
			&cli.DurationFlag{Name: "stall", Usage: "declare the suite stalled after this long without progress [MCPCONFORM_STALL]", Value: 2 * time.Minute},
			&cli.StringFlag{Name: "browser", Usage: "Chromium binary `PATH` [MCPCONFORM_BROWSER]"},
			&cli.StringFlag{Name: "node", Usage: "Node.js >= 20 binary `PATH` for the Playwright driver [MCPCONFORM_NODE]"},
			&cli.StringFlag{Name: "browser-ws", Usage: "use the Playwright browser server at `URL` (ws://…, e.g. from `playwright run-server`) instead of a local Chromium [MCPCONFORM_BROWSER_WS]"},
			&cli.StringFlag{Name: "cdp", Usage: "attach to a running Chrome or Electron app with remote debugging at `URL` (http:// or ws://) [MCPCONFORM_CDP]"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only failures and the summary [MCPCONFORM_QUIET]"},
			&cli.StringSliceFlag{Name: "host-defect", Usage: "make the reference host break one requirement on purpose (repeatable; see serve --list-defects) [MCPCONFORM_HOST_DEFECTS]"},
			&cli.StringSliceFlag{Name: "host-variation", Usage: "make the reference host differ from its default in a way the spec allows (repeatable, combinable with --host-defect; see serve --list-variations) [MCPCONFORM_HOST_VARIATIONS]"},
			&cli.StringFlag{Name: "evidence-dir", Usage: "write screenshots, console lines and JSON-RPC messages of checks that did not pass under `DIR` (\"\" disables) [MCPCONFORM_EVIDENCE_DIR]", Value: "mcpconform-results/evidence"},
			&cli.StringSliceFlag{Name: "hosts", Usage: "test several hosts at once, each in its own browser context (comma-separated) [MCPCONFORM_HOSTS]"},
			&cli.StringSliceFlag{Name: "clause", Usage: "run only checks of these clauses: MUST (with MUST NOT), SHOULD (with SHOULD NOT), MAY, INFO [MCPCONFORM_CLAUSE]"},
			&cli.StringSliceFlag{Name: "edition", Usage: "run only checks of these spec editions: 2026-01-26, draft [MCPCONFORM_EDITION]"},
			&cli.StringFlag{Name: "shard", Usage: "run shard `I/N` of the selected checks (deterministic; merge with report --merge) [MCPCONFORM_SHARD]"},
			&cli.BoolFlag{Name: "fail-on-should", Value: true, Usage: "SHOULD and MAY failures fail the run like MUST failures (--fail-on-should=false reports them without failing) [MCPCONFORM_FAIL_ON_SHOULD]"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "soak: run the suite `N` times in one process, printing goroutines, open files, child processes and memory after each (reports hold the last run) [MCPCONFORM_REPEAT]"},
			&cli.IntFlag{Name: "retries", Usage: "rerun a check that failed up to `N` times; one that then passes is reported flaky [MCPCONFORM_RETRIES]"},
			&cli.BoolFlag{Name: "trace", Usage: "record a Playwright trace of the run into the evidence directory (may contain page content) [MCPCONFORM_TRACE]"},
		}, outputFlags()...),
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return usage(fmt.Errorf("run takes no arguments, got %q", c.Args().Slice()))
			}
			cfg, err := loadConfig(c.Context, c, envconfig.OsLookuper())
			if err != nil {
				return usage(err)
			}
			exp, err := loadExpectations(c)
			if err != nil {
				return err
			}
			return runSuite(c, cfg, exp, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// runLimit is how long a whole run may take: --timeout bounds one pass of
// the suite, so a soak of --repeat N passes gets N times as long (a default
// meant for one pass would otherwise cut a soak short).
func runLimit(cfg Config) time.Duration {
	n := max(cfg.Repeat, 1)
	return cfg.Timeout * time.Duration(n)
}

func runSuite(cc *cli.Context, cfg Config, exp *baseline.Expectations, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(cc.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	ctx, cancel := context.WithTimeout(ctx, runLimit(cfg))
	defer cancel()

	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "mcpconform: "+format+"\n", args...) }
	run := report.Run{Tool: "mcpconform", Version: version, StartedAt: time.Now()}
	color := isTerminal(stdout)
	conOpts := append(consoleOptions(cc), report.ConsoleQuiet(cfg.Quiet))
	con := report.NewConsole(stdout, color, conOpts...)
	tapToStdout := cfg.TAP == "-"
	if tapToStdout {
		con = report.NewConsole(stderr, isTerminal(stderr), conOpts...)
	}

	var runErr error
	func() {
		fx, err := fixtures.Start(ctx)
		if err != nil {
			runErr = &runner.InfraError{Step: "starting the fixture MCP servers", Err: err}
			return
		}
		defer fx.Close()
		// Concurrent hosts share the record; each check must still find its
		// run's first calls there.
		fx.MainServer.SetKeep(mcpserver.MaxKept * len(cfg.hostList()))
		if cfg.Headed {
			// Headed without a display (CI): start Xvfb, before the driver,
			// which inherits DISPLAY.
			x, err := bridge.EnsureDisplay(ctx, logf)
			if err != nil {
				runErr = &runner.InfraError{Step: "starting a display for --headed", Err: err}
				return
			}
			defer x.Close()
		}
		// Hosted products must be reachable through the loopback guard.
		var allow []string
		for _, name := range cfg.hostList() {
			if a, ok := newHost(cfg, name).(interface{ AllowedHosts() ([]string, error) }); ok {
				hs, err := a.AllowedHosts()
				if err != nil {
					runErr = &exitError{code: ExitUsage, err: err}
					return
				}
				allow = append(allow, hs...)
			}
		}
		br, err := bridge.Launch(bridge.Options{Paths: bridge.Paths{Browser: cfg.Browser, Node: cfg.Node}, Headed: cfg.Headed, Logf: logf, AllowHosts: allow,
			WSEndpoint: cfg.BrowserWS, CDPURL: cfg.CDP})
		if err != nil {
			runErr = &runner.InfraError{Step: "starting the browser", Err: err}
			return
		}
		defer br.Close()
		sel, _ := cfg.selection()
		// Hosts run concurrently, each in its own browser context of the one
		// browser; their results never mix (each has its own runner).
		names := cfg.hostList()
		hrs := make([]report.HostRun, len(names))
		errs := make([]error, len(names))
		for iter := 1; iter <= cfg.Repeat; iter++ {
			var wg sync.WaitGroup
			for i, name := range names {
				wg.Add(1)
				go func() {
					defer wg.Done()
					hrs[i], errs[i] = runner.Run(ctx, newHost(cfg, name), runner.Options{
						Env: hosts.Env{
							Browser: br, ServerURL: fx.Main.URL, SecondServerURL: fx.Second.URL,
							AppTimeout: cfg.AppTimeout, Logf: logf, TraceFile: traceFile(cfg, name),
						},
						EvidenceDir: cfg.EvidenceDir,
						Retries:     cfg.Retries,
						Selection:   sel,
						Stall:       cfg.Stall,
						Logf:        logf,
						OnCase: func(c report.Case) {
							exp.Mark(name, &c) // live XFAIL/STALE; the console filters --quiet
							con.Case(name, c)
						},
					})
				}()
			}
			wg.Wait()
			if cfg.Repeat > 1 {
				fmt.Fprintf(stderr, "soak %d/%d: %s\n", iter, cfg.Repeat, soakFigures())
			}
			if runErr = firstError(errs); runErr != nil || ctx.Err() != nil {
				break
			}
		}
		run.Hosts = append(run.Hosts, hrs...)
	}()
	run.Duration = time.Since(run.StartedAt)
	if len(run.Hosts) == 0 && runErr != nil {
		for _, name := range cfg.hostList() {
			run.Hosts = append(run.Hosts, report.HostRun{Host: name, StartedAt: run.StartedAt, Infra: runErr.Error()})
		}
	}

	// Reports are written whatever happened, before the exit code is chosen.
	// writeOutputs applies the baseline to run, so it comes first.
	outErr := writeOutputs(cc, &run, exp)
	if err := errors.Join(outErr, writeReports(cfg, run, junitOptions(cc), stdout)); err != nil {
		logf("writing reports: %v", err)
		if runErr == nil {
			runErr = err
		}
	}
	con.Summary(run)

	select {
	case s := <-sig:
		if s == syscall.SIGTERM {
			return &exitError{code: ExitSIGTERM, err: errors.New("terminated; reports hold what finished")}
		}
		return &exitError{code: ExitSIGINT, err: errors.New("interrupted; reports hold what finished")}
	default:
	}
	switch {
	case errors.Is(runErr, runner.ErrNoTests):
		return &exitError{code: ExitNoTests, err: fmt.Errorf("%w (--run %q)", runErr, cfg.Run)}
	case errors.Is(runErr, context.DeadlineExceeded):
		if cfg.Repeat > 1 {
			return &exitError{code: ExitInfra, err: fmt.Errorf("the run exceeded --timeout %s × --repeat %d = %s", cfg.Timeout, cfg.Repeat, runLimit(cfg))}
		}
		return &exitError{code: ExitInfra, err: fmt.Errorf("the run exceeded --timeout %s", cfg.Timeout)}
	case runErr != nil:
		var ee *exitError
		if errors.As(runErr, &ee) {
			return ee
		}
		return &exitError{code: ExitInfra, err: runErr}
	}
	return verdictError(gatingRun(run, cfg.FailOnShould), exp, cc.Bool("allow-stale"))
}

// gatingRun is the run the exit code is judged on. With
// --fail-on-should=false, failures of SHOULD, SHOULD NOT and MAY checks are
// reported everywhere but do not fail the run; MUST failures always do.
func gatingRun(run report.Run, failOnShould bool) report.Run {
	if failOnShould {
		return run
	}
	out := run
	out.Hosts = make([]report.HostRun, len(run.Hosts))
	for i, h := range run.Hosts {
		h.Cases = nil
		for _, c := range run.Hosts[i].Cases {
			lenient := c.Clause == protocol.ClauseShould || c.Clause == protocol.ClauseShouldNot || c.Clause == protocol.ClauseMay
			if lenient && (c.Status == protocol.StatusFail || c.Status == protocol.StatusTimeout) {
				continue
			}
			h.Cases = append(h.Cases, c)
		}
		out.Hosts[i] = h
	}
	return out
}

func writeReports(cfg Config, run report.Run, jopts report.JUnitOptions, stdout io.Writer) error {
	var errs []error
	if cfg.JUnit != "" {
		errs = append(errs, writeFile(cfg.JUnit, func(w io.Writer) error { return report.WriteJUnit(w, run, jopts) }))
	}
	switch cfg.TAP {
	case "":
	case "-":
		errs = append(errs, report.WriteTAP(stdout, run))
	default:
		errs = append(errs, writeFile(cfg.TAP, func(w io.Writer) error { return report.WriteTAP(w, run) }))
	}
	return errors.Join(errs...)
}

// writeFile writes atomically: a crash mid-write never leaves half a report.
func writeFile(name string, write func(io.Writer) error) error {
	if dir := dirOf(name); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	dir := dirOf(name)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, ".mcpconform-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func dirOf(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return ""
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("NO_COLOR") == ""
}

// soakFigures reports what a leak would make grow: goroutines, open file
// descriptors, live descendant processes, and memory.
func soakFigures() string {
	var ms runtime.MemStats
	// Two collections: the first moves sync.Pool contents (encoding/json
	// keeps buffers of up to 128 KB there) to the victim cache, the second
	// frees them, so heap_live_mb is the data the process still holds.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	fds, _ := os.ReadDir("/proc/self/fd")
	kids := descendants(os.Getpid())
	// The children's RSS (driver, browser, renderers) double-counts shared
	// pages, but a leak in the browser shows as growth here.
	var tree int64
	for _, p := range kids {
		tree += rssOf(fmt.Sprintf("/proc/%d/status", p))
	}
	return fmt.Sprintf("goroutines=%d fds=%d children=%d heap_live_mb=%.2f heap_inuse_mb=%.1f rss_mb=%.1f children_rss_mb=%.0f",
		runtime.NumGoroutine(), len(fds), len(kids), float64(ms.HeapAlloc)/(1<<20), float64(ms.HeapInuse)/(1<<20), float64(selfRSS())/(1<<20), float64(tree)/(1<<20))
}

// descendants lists the live processes below pid (Linux /proc).
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		var state string
		var ppid int
		if _, err := fmt.Sscan(rest, &state, &ppid); err == nil && state != "Z" {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

func selfRSS() int64 { return rssOf("/proc/self/status") }

// rssOf reads VmRSS from a /proc/<pid>/status file (0 when unreadable).
func rssOf(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmRSS:"), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}
