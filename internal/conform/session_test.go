package conform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/testkit/loopback"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// doneSuite is a suite of one check that passes at once.
type doneSuite struct{ started []string }

func (s *doneSuite) ListTests(context.Context) (protocol.SuiteList, error) {
	return protocol.SuiteList{ProtocolVersion: protocol.Version, SuiteVersion: "fake",
		Tests: []protocol.TestMeta{{ID: "a/one", Name: "one", Clause: protocol.ClauseMust}}}, nil
}
func (s *doneSuite) Start(_ context.Context, ids []string) error { s.started = ids; return nil }
func (s *doneSuite) Poll(context.Context, time.Duration) (protocol.Poll, error) {
	return protocol.Poll{Instance: "i", State: protocol.StateDone, Results: []protocol.TestResult{{ID: "a/one", Status: protocol.StatusPass}}}, nil
}
func (s *doneSuite) Resolve(context.Context, int, protocol.Result) (bool, error) { return true, nil }

// fakeHost records the environment it was set up with, and whether the
// runner bound the suite in its frame.
type fakeHost struct {
	name  string
	env   hosts.Env
	fail  error
	bound bool
}

func (h *fakeHost) Name() string { return h.name }
func (h *fakeHost) Setup(_ context.Context, e hosts.Env) error {
	h.env = e
	return h.fail
}
func (h *fakeHost) BindSuite(context.Context, time.Duration) (hosts.SuiteBridge, error) {
	h.bound = true
	return &doneSuite{}, nil
}
func (h *fakeHost) Teardown(context.Context) error { return nil }

// Run runs every host once per pass, each freshly built, the first with
// the session's fixture servers and the other with its own, and keeps the
// results in the names' order.
func TestRunEveryHostEveryPass(t *testing.T) {
	fx, err := fixtures.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	var mu sync.Mutex
	built := map[string]int{}
	var last []*fakeHost
	s := &Session{Fixtures: fx, o: Options{NewHost: func(name string) (hosts.Host, error) {
		mu.Lock()
		defer mu.Unlock()
		built[name]++
		h := &fakeHost{name: name}
		last = append(last, h)
		return h, nil
	}}}
	var passes []int
	var cases atomic.Int32
	hrs, err := s.Run(context.Background(), []string{"x", "y"}, RunOptions{
		Repeat: 3, AppTimeout: 7 * time.Second,
		TraceFile: func(h string) string { return h + ".zip" },
		OnCase:    func(host string, c report.Case) { cases.Add(1) },
		AfterPass: func(p int) { passes = append(passes, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hrs) != 2 || hrs[0].Host != "x" || hrs[1].Host != "y" || len(hrs[0].Cases) != 1 || hrs[0].Cases[0].Status != protocol.StatusPass {
		t.Fatalf("results %+v", hrs)
	}
	if built["x"] != 3 || built["y"] != 3 || len(passes) != 3 || cases.Load() != 6 {
		t.Errorf("built %v, passes %v, cases %d", built, passes, cases.Load())
	}
	e := last[len(last)-2].env
	if e.ServerURL != fx.Main.URL || e.SecondServerURL != fx.Second.URL || e.AppTimeout != 7*time.Second || !strings.HasSuffix(e.TraceFile, ".zip") {
		t.Errorf("env %+v", e)
	}
	// The other host at once gets fixture servers of its own (a record
	// of its own), gone when the run ends.
	if y := last[len(last)-1].env; y.ServerURL == "" || y.ServerURL == fx.Main.URL || y.SecondServerURL == fx.Second.URL || y.AppTimeout != 7*time.Second {
		t.Errorf("second host's env %+v: want fixture servers of its own", y)
	} else if resp, err := http.Get(y.ServerURL); err == nil {
		resp.Body.Close()
		t.Errorf("the second host's fixture server still answers after the run (%s)", resp.Status)
	}
	// An evaluate run binds the suite in the host's frame.
	if !last[len(last)-1].bound {
		t.Error("evaluate run: the suite was not bound in the host's frame")
	}

	// --bridge relay: the runner gets the run's relay and never binds in
	// the frame; no View comes to this relay, so the run says so when the
	// app timeout ends. It runs one host at a time.
	hrs, err = s.Run(context.Background(), []string{"x"}, RunOptions{Bridge: runner.BridgeRelay, AppTimeout: 300 * time.Millisecond})
	h := last[len(last)-1]
	if err == nil || h.bound || !strings.Contains(hrs[0].Infra, "no suite View appeared on the relay within 300ms") {
		t.Errorf("relay run: %v, bound %v, infra %q", err, h.bound, hrs[0].Infra)
	}
	var ue *UsageError
	if _, err := s.Run(context.Background(), []string{"x", "y"}, RunOptions{Bridge: runner.BridgeRelay}); !errors.As(err, &ue) {
		t.Errorf("relay with two hosts: %v, want a usage error", err)
	}
	if _, err := s.Run(context.Background(), []string{"x"}, RunOptions{Bridge: "carrier-pigeon"}); !errors.As(err, &ue) {
		t.Errorf("an unknown bridge: %v, want a usage error", err)
	}

	// A failed host ends the run after its pass, with its error.
	boom := errors.New("no page")
	s.o.NewHost = func(name string) (hosts.Host, error) { return &fakeHost{name: name, fail: boom}, nil }
	passes = nil
	hrs, err = s.Run(context.Background(), []string{"x"}, RunOptions{Repeat: 5, AfterPass: func(p int) { passes = append(passes, p) }})
	var ie *runner.InfraError
	if !errors.As(err, &ie) || !errors.Is(err, boom) || len(passes) != 1 || hrs[0].Infra == "" {
		t.Errorf("failed host: %v, passes %v, %+v", err, passes, hrs)
	}
}

// Without a browser, Conform still writes every report, naming the
// infrastructure error for each host, and says which step failed.
func TestConformWritesReportsWhenTheBrowserIsMissing(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "junit.xml")
	var logs strings.Builder
	run, err := Run(context.Background(), Plan{
		Start: Options{Launch: browser.Options{Paths: browser.Paths{Browser: "/nonexistent/chromium"}}, Hosts: []string{"x", "y"},
			NewHost: func(name string) (hosts.Host, error) { return &fakeHost{name: name}, nil },
			Logf:    func(f string, a ...any) { logs.WriteString(f) }},
		Reports: Reports{Outputs: report.Outputs{"junit": junit}},
		Tool:    "t", Version: "v",
	})
	var ie *runner.InfraError
	if !errors.As(err, &ie) || ie.Step != "starting the browser" || !errors.Is(err, browser.ErrNoBrowser) {
		t.Fatalf("error %v", err)
	}
	if len(run.Hosts) != 2 || !strings.Contains(run.Hosts[1].Infra, "no Chromium found") {
		t.Errorf("hosts %+v", run.Hosts)
	}
	b, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(b), "no Chromium found") {
		t.Errorf("report: %v\n%s", err, b)
	}
}

// A host that cannot be built is the user's error, not the
// infrastructure's, and nothing stays running.
func TestStartRefusesAnUnbuildableHost(t *testing.T) {
	_, err := Start(context.Background(), Options{Hosts: []string{"nope"},
		NewHost: func(name string) (hosts.Host, error) { return nil, errors.New(`unknown host "nope"`) }})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `unknown host "nope"`) {
		t.Errorf("error %v", err)
	}
}

func TestSoakFigures(t *testing.T) {
	f := SoakFigures()
	for _, k := range []string{"goroutines=", "fds=", "children=", "heap_live_mb=", "heap_inuse_mb=", "rss_mb=", "children_rss_mb="} {
		if !strings.Contains(f, k) {
			t.Errorf("%q lacks %s", f, k)
		}
	}
	if strings.Contains(f, "rss_mb=0.0 ") {
		t.Errorf("this process's RSS read as 0: %s", f)
	}
}

// browserlessHost drives no browser (like hosts/connect).
type browserlessHost struct{ fakeHost }

func (*browserlessHost) BrowserFree() bool { return true }

// A session whose hosts all do without a browser starts none, and with
// Options.Public its hosts get the public connector URLs.
func TestABrowserlessSessionAtAPublicURL(t *testing.T) {
	h := &browserlessHost{fakeHost{name: "remote"}}
	s, err := Start(context.Background(), Options{
		Hosts:   []string{"remote"},
		NewHost: func(string) (hosts.Host, error) { return h, nil },
		Public:  &fixtures.PublicOptions{PublicURL: "https://mcp.example.com/mcp", Listen: "127.0.0.1:0"},
		// A browser that cannot start: launching one would fail the test.
		Launch: browser.Options{Paths: browser.Paths{Browser: "/nonexistent/chromium"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Browser != nil {
		t.Error("a browser was launched for a host that needs none")
	}
	if s.Fixtures != nil || s.Public == nil || s.MainServer() != s.Public.MainServer {
		t.Fatalf("fixtures %v, public %v", s.Fixtures, s.Public)
	}
	hrs, err := s.Run(context.Background(), []string{"remote"}, RunOptions{AppTimeout: time.Second})
	if err != nil || len(hrs) != 1 || hrs[0].Cases[0].Status != protocol.StatusPass {
		t.Fatalf("run: %v %+v", err, hrs)
	}
	if h.env.ServerURL != "https://mcp.example.com/mcp" || h.env.SecondServerURL != "https://mcp.example.com/mcp/second" || h.env.Browser != nil {
		t.Errorf("env: %+v", h.env)
	}

	// A bad public URL is the user's mistake.
	_, err = Start(context.Background(), Options{Hosts: []string{"remote"}, NewHost: func(string) (hosts.Host, error) { return h, nil },
		Public: &fixtures.PublicOptions{PublicURL: "ftp://x", Listen: "127.0.0.1:0"}})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Errorf("bad public URL: %v, want a UsageError", err)
	}
}

// Issue #28: fixed fixture ports. A host configured once with the server's
// URL finds it in the next session at the same address; a port taken by
// something else is the user's to free (a UsageError naming it), found
// before any browser starts.
func TestFixedFixturePorts(t *testing.T) {
	p1, p2 := loopback.FreePort(t), loopback.FreePort(t)
	h := &browserlessHost{fakeHost{name: "remote"}}
	o := Options{
		Hosts:    []string{"remote"},
		NewHost:  func(string) (hosts.Host, error) { return h, nil },
		Fixtures: fixtures.Options{MainPort: p1, SecondPort: p2},
		Launch:   browser.Options{Paths: browser.Paths{Browser: "/nonexistent/chromium"}},
	}
	want := fmt.Sprintf("http://127.0.0.1:%d/mcp", p1)
	for run := 1; run <= 2; run++ {
		s, err := Start(context.Background(), o)
		if err != nil {
			t.Fatalf("session %d: %v", run, err)
		}
		if env := s.Env(); env.ServerURL != want || env.SecondServerURL != fmt.Sprintf("http://127.0.0.1:%d/mcp", p2) {
			t.Errorf("session %d: servers %s and %s, want ports %d and %d", run, env.ServerURL, env.SecondServerURL, p1, p2)
		}
		if run == 1 {
			// While the first session holds the port, another cannot.
			_, err := Start(context.Background(), o)
			var ue *UsageError
			if !errors.As(err, &ue) || !errors.Is(err, fixtures.ErrPortInUse) || !strings.Contains(err.Error(), fmt.Sprintf("127.0.0.1:%d", p1)) {
				t.Errorf("a taken port: %v, want a UsageError naming 127.0.0.1:%d", err, p1)
			}
		}
		s.Close()
	}
	o.Fixtures = fixtures.Options{MainPort: p1, SecondPort: p1}
	if _, err := Start(context.Background(), o); err == nil || !strings.Contains(err.Error(), "cannot share port") {
		t.Errorf("one port for both servers: %v", err)
	}
}
