package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/fixtures/suite"
	"github.com/mcpconform/mcpconform/hosts"
	_ "github.com/mcpconform/mcpconform/hosts/builtin" // registers the built-in hosts
	"github.com/mcpconform/mcpconform/hosts/connect"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/cliconfig"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
	"github.com/mcpconform/mcpconform/runner"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Config is every setting of `run`, from MCPCONFORM_* variables through
// go-envconfig; flags given on the command line win.
type Config struct {
	Host    string        `env:"HOST, default=reference" flag:"host"`
	JUnit   string        `env:"JUNIT" flag:"junit"`
	TAP     string        `env:"TAP" flag:"tap"`
	Run     []string      `env:"RUN" flag:"run"`
	Headed  bool          `env:"HEADED" flag:"headed"`
	Timeout time.Duration `env:"TIMEOUT, default=10m" flag:"timeout"`
	// AppTimeout 0 is the host's default (hosts.AppTimeout).
	AppTimeout time.Duration `env:"APP_TIMEOUT" flag:"app-timeout"`
	Stall      time.Duration `env:"STALL, default=2m" flag:"stall"`
	Browser    string        `env:"BROWSER" flag:"browser"`
	BrowserWS  string        `env:"BROWSER_WS" flag:"browser-ws"`
	CDP        string        `env:"CDP" flag:"cdp"`
	Node       string        `env:"NODE" flag:"node"`
	Quiet      bool          `env:"QUIET" flag:"quiet"`
	// HostDefects make the reference host break requirements on purpose.
	HostDefects []string `env:"HOST_DEFECTS" flag:"host-defect"`
	// HostVariations make the reference host differ within the spec.
	HostVariations []string `env:"HOST_VARIATIONS" flag:"host-variation"`
	// EvidenceDir receives screenshots, console lines and JSON-RPC
	// messages of checks that did not pass; empty disables evidence.
	EvidenceDir string `env:"EVIDENCE_DIR, default=mcpconform-results/evidence" flag:"evidence-dir"`
	Trace       bool   `env:"TRACE" flag:"trace"`
	Video       bool   `env:"VIDEO" flag:"video"`
	Retries     int    `env:"RETRIES" flag:"retries"`
	// Hosts runs several hosts at once (overrides Host).
	Hosts    []string `env:"HOSTS" flag:"hosts,split"`
	Clauses  []string `env:"CLAUSE" flag:"clause,split"`
	Editions []string `env:"EDITION" flag:"edition,split"`
	// JudgeEdition is the edition whose text judges the checks ("" is
	// the stable edition; see runner.Selection.Judge).
	JudgeEdition string `env:"JUDGE_EDITION" flag:"judge-edition"`
	Shard        string `env:"SHARD" flag:"shard"`
	FailOnShould bool   `env:"FAIL_ON_SHOULD, default=true" flag:"fail-on-should"`
	// Repeat runs the whole suite this many times in one process (a soak)
	// and prints resource figures after each; reports hold the last run.
	Repeat int `env:"REPEAT, default=1" flag:"repeat"`
	// Connect are the options of --host connect (--operator, --public-url).
	Connect connect.Settings
	// Bridge is how the runner reaches the suite: evaluate (the app
	// frame's evaluate) or relay (the View's own tools/call, no evaluate).
	Bridge string `env:"BRIDGE, default=evaluate" flag:"bridge"`
	// Out are the JSON and Markdown reports, the baseline and verbosity.
	Out outputConfig
	// FixturePort and SecondFixturePort fix the loopback ports of the
	// fixture servers (0: a free port each run), so that a host
	// configured once with {server} keeps finding it.
	FixturePort       int `env:"FIXTURE_PORT" flag:"fixture-port"`
	SecondFixturePort int `env:"SECOND_FIXTURE_PORT" flag:"second-fixture-port"`
	// CORSOrigins may call the fixture servers from the browser besides
	// loopback origins.
	CORSOrigins []string `env:"CORS_ORIGINS" flag:"cors-origin,split"`
}

// fixtures are where the run's loopback fixture servers listen and whom
// they let in.
func (cfg Config) fixtures() fixtures.Options {
	return fixtures.Options{MainPort: cfg.FixturePort, SecondPort: cfg.SecondFixturePort, CORSOrigins: cfg.CORSOrigins}
}

// hostNames are the hosts this run tests.
func (cfg Config) hostNames() []string {
	if len(cfg.Hosts) > 0 {
		return cfg.Hosts
	}
	return []string{cfg.Host}
}

// hostParams are what every host of the run is built with: the run's
// settings as one lookup (the flags given over the MCPCONFORM_*
// variables), the reference host's defects and variations, and the
// terminal (connect's instructions and --operator prompts go to stderr).
func hostParams(c *cli.Context, cfg *Config) hosts.Params {
	return hosts.Params{Environ: cliconfig.Overlay(c, cfg), Defects: cfg.HostDefects, Variations: cfg.HostVariations, In: c.App.Reader, Out: c.App.ErrWriter}
}

// hostMaker builds the run's hosts by name, each fresh.
func hostMaker(p hosts.Params) func(name string) (hosts.Host, error) {
	return func(name string) (hosts.Host, error) {
		p.Name = name
		return hosts.New(p)
	}
}

// checkHosts builds every host once, starting nothing: a host that is
// unknown, listed twice, or refuses what it was given is a usage error.
func checkHosts(names []string, p hosts.Params) error {
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			return fmt.Errorf("host %q is listed twice", name)
		}
		seen[name] = true
		if _, err := hostMaker(p)(name); err != nil {
			return err
		}
	}
	return nil
}

func loadConfig(c *cli.Context) (Config, error) {
	var cfg Config
	if err := load(c, &cfg); err != nil {
		return cfg, err
	}
	switch {
	case cfg.BrowserWS != "" && cfg.CDP != "":
		return cfg, errors.New("--browser-ws and --cdp conflict: connect to one remote browser")
	case c.IsSet("host") && c.IsSet("hosts"):
		return cfg, errors.New("--host and --hosts conflict: give the hosts to test with one of them")
	case cfg.Repeat < 1 || cfg.Repeat > 1000:
		return cfg, fmt.Errorf("--repeat must be between 1 and 1000, got %d", cfg.Repeat)
	case cfg.Retries < 0 || cfg.Retries > 10:
		return cfg, fmt.Errorf("--retries must be between 0 and 10, got %d", cfg.Retries)
	case cfg.Trace && cfg.EvidenceDir == "":
		return cfg, errors.New("--trace needs an --evidence-dir to write the trace into")
	case cfg.Video && cfg.EvidenceDir == "":
		return cfg, errors.New("--video needs an --evidence-dir to write the videos into")
	}
	if err := cfg.Connect.Check(cfg.hostNames(), c.IsSet); err != nil {
		return cfg, err
	}
	if cfg.Connect.Public() != nil && (cfg.FixturePort != 0 || cfg.SecondFixturePort != 0 || len(cfg.CORSOrigins) > 0) {
		return cfg, errors.New("--fixture-port, --second-fixture-port and --cors-origin are for the loopback fixture servers; with --public-url they are served on --listen")
	}
	if err := cfg.fixtures().Check(); err != nil {
		return cfg, err
	}
	if cfg.Bridge == runner.BridgeRelay && slices.Contains(cfg.hostNames(), connect.Name) {
		// Under --bridge relay the runner declines what reaches into a
		// View's frame (clickTrigger, closeView, cancelTool), which for
		// connect a person does, not the runner.
		return cfg, errors.New("--bridge relay is for browser hosts: --host connect always reaches the suite through the relay, and with --bridge relay the runner would decline what the operator does in the View")
	}
	if err := conform.CheckBridge(cfg.Bridge, cfg.hostNames()); err != nil {
		return cfg, err
	}
	if err := checkHosts(cfg.hostNames(), hostParams(c, &cfg)); err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}

func (cfg Config) validate() error {
	if _, err := cfg.selection(); err != nil {
		return err
	}
	if cfg.AppTimeout < 0 {
		return fmt.Errorf("--app-timeout must be a positive duration, got %s", cfg.AppTimeout)
	}
	for name, d := range map[string]time.Duration{"--timeout": cfg.Timeout, "--stall": cfg.Stall} {
		if d <= 0 {
			return fmt.Errorf("%s must be a positive duration, got %s", name, d)
		}
	}
	return cfg.Out.outputs(cfg).Check()
}

// selection turns --run, --clause, --edition and --shard into a runner
// selection, or says which value is wrong.
func (cfg Config) selection() (runner.Selection, error) {
	known, _ := suite.IDs()
	sel, err := runner.ParseSelection(cfg.Run, cfg.Clauses, cfg.Editions, cfg.Shard, known)
	if err != nil {
		return sel, err
	}
	sel.Judge, err = runner.ParseJudgeEdition(cfg.JudgeEdition)
	return sel, err
}

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
		Commands: []*cli.Command{runCommand(), listCommand(), serveCommand(), reportCommand(), selftestCommand(), loginCommand(), hostsCommand(), benchCommand(), soakCommand(), stdioCommand()},
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
			&cli.StringFlag{Name: "host", Usage: "host to test: a built-in host (" + strings.Join(hosts.Names(), ", ") + ") or the `NAME` of a host profile defined by MCPCONFORM_<NAME>_* variables (mcpconform hosts lists them; docs/profiles.md) [MCPCONFORM_HOST]", Value: "reference"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML to `FILE` [MCPCONFORM_JUNIT]"},
			&cli.StringFlag{Name: "tap", Usage: "write TAP version 14 to `FILE` (- for stdout) [MCPCONFORM_TAP]"},
			&cli.StringSliceFlag{Name: "run", Usage: "run only tests whose id matches `GLOB` (repeatable, e.g. 'visibility/*') [MCPCONFORM_RUN]"},
			&cli.BoolFlag{Name: "headed", Usage: "show the browser window [MCPCONFORM_HEADED]"},
			&cli.DurationFlag{Name: "timeout", Usage: "limit for the whole run (with --repeat N, for each of the N passes) [MCPCONFORM_TIMEOUT]", Value: 10 * time.Minute},
			&cli.DurationFlag{Name: "app-timeout", Usage: "how long the host may take to show the app (default " + hosts.DefaultAppTimeout.String() + "; 10m with --host connect, where a person sets the host up) [MCPCONFORM_APP_TIMEOUT]"},
			&cli.DurationFlag{Name: "stall", Usage: "declare the suite stalled after this long without progress [MCPCONFORM_STALL]", Value: 2 * time.Minute},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only failures and the summary [MCPCONFORM_QUIET]"},
			&cli.StringSliceFlag{Name: "host-defect", Usage: "make the reference host break one requirement on purpose (repeatable; see serve --list-defects) [MCPCONFORM_HOST_DEFECTS]"},
			&cli.StringSliceFlag{Name: "host-variation", Usage: "make the reference host differ from its default in a way the spec allows (repeatable, combinable with --host-defect; see serve --list-variations) [MCPCONFORM_HOST_VARIATIONS]"},
			&cli.StringFlag{Name: "evidence-dir", Usage: "write screenshots, console lines and JSON-RPC messages of checks that did not pass under `DIR` (\"\" disables) [MCPCONFORM_EVIDENCE_DIR]", Value: "mcpconform-results/evidence"},
			&cli.StringSliceFlag{Name: "hosts", Usage: "test several hosts at once, each in its own browser context (comma-separated) [MCPCONFORM_HOSTS]"},
			&cli.StringSliceFlag{Name: "clause", Usage: "run only checks of these clauses: MUST (with MUST NOT), SHOULD (with SHOULD NOT), MAY, INFO [MCPCONFORM_CLAUSE]"},
			&cli.StringSliceFlag{Name: "edition", Usage: "run only checks of these spec editions: 2026-01-26, draft [MCPCONFORM_EDITION]"},
			&cli.StringFlag{Name: "judge-edition", Usage: "judge the checks against this edition's text: each check carries the keyword its sentence has there and cites it; 2026-01-26 (the default) or draft [MCPCONFORM_JUDGE_EDITION]"},
			&cli.StringFlag{Name: "shard", Usage: "run shard `I/N` of the selected checks (deterministic; merge with report --merge) [MCPCONFORM_SHARD]"},
			&cli.BoolFlag{Name: "fail-on-should", Value: true, Usage: "SHOULD and MAY failures fail the run like MUST failures (--fail-on-should=false reports them without failing) [MCPCONFORM_FAIL_ON_SHOULD]"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "soak: run the suite `N` times in one process, printing goroutines, open files, child processes and memory after each (reports hold the last run) [MCPCONFORM_REPEAT]"},
			&cli.IntFlag{Name: "retries", Usage: "rerun a check that failed up to `N` times; one that then passes is reported flaky [MCPCONFORM_RETRIES]"},
			&cli.BoolFlag{Name: "trace", Usage: "record a Playwright trace of the run into the evidence directory (may contain page content) [MCPCONFORM_TRACE]"},
			&cli.StringFlag{Name: "bridge", Value: "evaluate", Usage: "how the runner reaches the suite: evaluate (an evaluate in the app frame) or relay (the suite's own tools/call through the host to the fixture server; no evaluate in the app frame; needs hostCapabilities.serverTools; one host at a time) [MCPCONFORM_BRIDGE]"},
			&cli.BoolFlag{Name: "video", Usage: "record a video of each host's page into the evidence directory as HOST/video.webm (needs FFmpeg: apt-get install ffmpeg; may show logged-in content) [MCPCONFORM_VIDEO]"},
			&cli.BoolFlag{Name: "operator", Usage: "with --host connect: ask the person at this terminal to do what a check needs done in the host (click, confirm, look at the conversation, switch the theme, close the View); refused without a terminal [MCPCONFORM_OPERATOR]"},
			&cli.DurationFlag{Name: "operator-timeout", Value: 30 * time.Second, Usage: "how long each --operator prompt waits for its answer; no answer fails the check [MCPCONFORM_OPERATOR_TIMEOUT]"},
			&cli.StringFlag{Name: "public-url", Usage: "with --host connect: serve the fixture MCP servers at this `URL` (a tunnel or reverse proxy to --listen) for a host on another machine [MCPCONFORM_PUBLIC_URL]"},
			&cli.StringFlag{Name: "listen", Usage: "with --public-url: the local `ADDR` the tunnel forwards to (default 127.0.0.1:8080) [MCPCONFORM_LISTEN]"},
			&cli.StringSliceFlag{Name: "csp-target", Usage: "with --public-url: a public `ORIGIN` for the CSP checks (give two: declared, undeclared) [MCPCONFORM_CSP_TARGETS]"},
			&cli.IntFlag{Name: "fixture-port", Usage: "serve the fixture MCP server at http://127.0.0.1:`PORT`/mcp instead of a free port, so that a host configured once with its URL finds it every run (a port in use stops the run with exit code 2) [MCPCONFORM_FIXTURE_PORT]"},
			&cli.IntFlag{Name: "second-fixture-port", Usage: "the same for the second fixture MCP server ({server2}) at http://127.0.0.1:`PORT`/mcp [MCPCONFORM_SECOND_FIXTURE_PORT]"},
			&cli.StringSliceFlag{Name: "cors-origin", Usage: "let pages of this `ORIGIN` call the fixture servers from the browser (CORS; loopback origins always may; repeatable) [MCPCONFORM_CORS_ORIGINS]"},
		}, append(browserFlags(true), outputFlags()...)...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c, ""); err != nil {
				return err
			}
			cfg, err := loadConfig(c)
			if err != nil {
				return usage(err)
			}
			exp, err := loadExpectations(cfg.Out)
			if err != nil {
				return err
			}
			return runSuite(c.Context, cfg, hostMaker(hostParams(c, &cfg)), exp, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// runLimit is how long a whole run may take: --timeout bounds one pass of
// the suite, so a soak of --repeat N passes gets N times as long (a default
// meant for one pass would otherwise cut a soak short).
func runLimit(cfg Config) time.Duration {
	return cfg.Timeout * time.Duration(max(cfg.Repeat, 1))
}

// runSuite runs the suite (conform.Run) and maps the outcome to an
// exit code: a signal first, then the run's error, then the verdict.
func runSuite(ctx context.Context, cfg Config, newHost func(string) (hosts.Host, error), exp *expectations.Expectations, stdout, stderr io.Writer) error {
	ctx, stop := untilSignal(ctx)
	defer stop()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	ctx, cancel := context.WithTimeout(ctx, runLimit(cfg))
	defer cancel()

	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "mcpconform: "+format+"\n", args...) }
	sel, _ := cfg.selection()
	ro := conform.RunOptions{
		Runner:     runner.Options{EvidenceDir: cfg.EvidenceDir, Retries: cfg.Retries, Selection: sel, Stall: cfg.Stall, Logf: logf},
		AppTimeout: cfg.AppTimeout, Repeat: cfg.Repeat, AfterPass: conform.SoakLog(stderr, cfg.Repeat), Bridge: cfg.Bridge,
	}
	if cfg.Trace {
		ro.TraceFile = conform.TraceIn(cfg.EvidenceDir)
	}
	if cfg.Video {
		ro.VideoFile = conform.VideoIn(cfg.EvidenceDir)
	}
	run, runErr := conform.Run(ctx, conform.Plan{
		Start: conform.Options{
			Launch: browser.Options{Paths: browser.Paths{Browser: cfg.Browser, Node: cfg.Node}, Headed: cfg.Headed, WSEndpoint: cfg.BrowserWS, CDPURL: cfg.CDP, Video: cfg.Video},
			Hosts:  cfg.hostNames(), NewHost: newHost, Logf: logf, Public: cfg.Connect.Public(), Fixtures: cfg.fixtures(),
		},
		Run: ro, Reports: cfg.Out.reports(cfg), Expectations: exp, Tool: "mcpconform", Version: version, Stdout: stdout,
		Console: conform.NewConsole(stdout, stderr, cfg.Out.outputs(cfg), report.ConsoleVerbose(cfg.Out.Verbose), report.ConsoleQuiet(cfg.Quiet)),
	})
	select {
	case s := <-sig:
		if s == syscall.SIGTERM {
			return &exitError{code: ExitSIGTERM, err: errors.New("terminated; reports hold what finished")}
		}
		return &exitError{code: ExitSIGINT, err: errors.New("interrupted; reports hold what finished")}
	default:
	}
	var ue *conform.UsageError
	switch {
	case errors.Is(runErr, runner.ErrNoTests):
		return &exitError{code: ExitNoTests, err: fmt.Errorf("%w (--run %q)", runErr, cfg.Run)}
	case errors.Is(runErr, context.DeadlineExceeded) && cfg.Repeat > 1:
		return &exitError{code: ExitInfra, err: fmt.Errorf("the run exceeded --timeout %s × --repeat %d = %s", cfg.Timeout, cfg.Repeat, runLimit(cfg))}
	case errors.Is(runErr, context.DeadlineExceeded):
		return &exitError{code: ExitInfra, err: fmt.Errorf("the run exceeded --timeout %s", cfg.Timeout)}
	case errors.As(runErr, &ue):
		return usage(ue.Err)
	case runErr != nil:
		return &exitError{code: ExitInfra, err: runErr}
	}
	return verdictError(report.Gating(run, cfg.FailOnShould), exp, cfg.Out.AllowStale)
}
