//go:build unix

package generic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/inspector"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/internal/testkit/profiledoc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// One browser and one pair of fixture servers for the package's end-to-end
// tests (e2etest), and one MCP Inspector (installed from npm the first
// time, as the inspector driver does), all started on first use so that
// the unit tests need none of them, and stopped at the end.
var (
	inspOnce  sync.Once
	inspURL   string
	inspToken string
	inspStop  func() error
	inspErr   error
)

func TestMain(m *testing.M) {
	e2etest.Main(m, func() {
		if binDir != "" {
			os.RemoveAll(binDir) // the mcpconform the START tests built
		}
		if inspStop != nil {
			if err := inspStop(); err != nil {
				fmt.Fprintln(os.Stderr, "stopping the Inspector:", err)
			}
		}
	})
}

// env starts the browser and the fixture servers on first use; without
// Chromium the test skips.
func env(t *testing.T, appTimeout time.Duration) hosts.Env {
	t.Helper()
	e := e2etest.Env(t, appTimeout)
	e.Logf = t.Logf
	return e
}

// startInspector starts the package's Inspector once.
func startInspector(t *testing.T) (url, token string) {
	t.Helper()
	e := env(t, time.Minute)
	inspOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
		defer cancel()
		inspURL, inspToken, inspStop, inspErr = inspector.StartInstance(ctx, e, inspector.Options{})
	})
	if inspErr != nil {
		t.Fatalf("starting MCP Inspector %s: %v", inspector.Version, inspErr)
	}
	return inspURL, inspToken
}

// docBlock is the docs/profiles.md example name's variables starting
// with prefix (profiledoc.Block).
func docBlock(t *testing.T, name, prefix string, env ...string) map[string]string {
	t.Helper()
	return profiledoc.Block(t, filepath.Join("..", ".."), name, prefix, env...)
}

// docProfile is the documented Inspector profile (TOKEN set as the reader
// would have it): its MCPCONFORM_INSP_* variables, with URL pointed at url.
func docProfile(t *testing.T, url, token string) map[string]string {
	t.Helper()
	vars := docBlock(t, "insp", "MCPCONFORM_INSP_", "TOKEN="+token)
	if vars["MCPCONFORM_INSP_URL"] == "" || !strings.Contains(vars["MCPCONFORM_INSP_STEPS"], "autoConnect="+token) {
		t.Fatalf("the example exports %v", vars)
	}
	vars["MCPCONFORM_INSP_URL"] = url
	return vars
}

// The documented profile drives a real MCP Inspector through the generic
// host, and every check ends as it does through the built-in Go driver on
// the same Inspector release: same capabilities, and the statuses of the
// driver's review (hosts/inspector's e2e holds the driver to it, so a run
// of the driver here would only repeat that one).
func TestInspectorThroughProfile(t *testing.T) {
	e2etest.Extended(t)
	url, token := startInspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	vars := docProfile(t, url, token)
	// The Go driver on an Inspector of its own, so that neither run sees
	// what the other left behind.
	builtin := inspector.NewWithOptions(inspector.Options{Getenv: func(string) string { return "" }})
	l := envconfig.MapLookuper(vars)
	if got := Profiles(l); len(got) != 1 || got[0] != "insp" {
		t.Fatalf("Profiles: %v", got)
	}
	if r := Check("insp", l); !r.OK() {
		t.Fatalf("hosts --check insp: %v", r.Err)
	}
	h, err := Lookup("insp", l)
	if err != nil {
		t.Fatal(err)
	}
	// The same capabilities, of those a profile can have.
	for _, k := range protocol.Kinds {
		if hosts.Supports(h, k) != hosts.Supports(builtin, k) {
			t.Errorf("%s: the profile host supports it %v, the Go driver %v", k, hosts.Supports(h, k), hosts.Supports(builtin, k))
		}
	}

	viaProfile, _ := compareWithReview(t, ctx, h, builtin, hostreview.Inspector, runner.Selection{})
	if viaProfile.HostName != "MCP Inspector" || viaProfile.Host != "insp" {
		t.Errorf("the profile run is host %q (%q)", viaProfile.Host, viaProfile.HostName)
	}
	// Not a vacuous agreement: the reviewed host bug fails.
	for _, c := range viaProfile.Cases {
		if c.ID == "visibility/model-only-tool-rejected" && c.Status != protocol.StatusFail {
			t.Errorf("%s: %s, the Inspector's reviewed host bug should fail", c.ID, c.Status)
		}
	}
}

// The reference host expressed as a profile, with Go hooks only for what
// a profile cannot say (starting its backend, reading the agent's tool
// list), ends every check as the reference host's Go driver does. It
// exercises what the Inspector cannot: CONVERSATION, a DOM CONFIRM with
// {dialog}, THEME_ATTR on a class, OPEN_TOOL, CLOSE, CANCEL,
// Hooks.Prepare/Vars/ModelTools. (TestReferenceThroughEnvProfile does it
// with no Go at all.)
func TestReferenceThroughProfileAndHooks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var srv *reference.Server
	p := Profile{
		Steps:        referenceSteps,
		AppFrame:     referenceAppFrame,
		Conversation: `[data-testid="conversation"]`,
		UserMessages: `[data-testid="conversation"] [data-role="user"]`,
		ThemeToggle:  `[data-testid="theme-toggle"]`,
		ThemeAttr:    "body@class",
		Confirm:      `[data-testid="dialog-{dialog}"] [data-testid="dialog-confirm"]`,
		OpenTool:     "goto {url}/\nclick [data-testid=tool-picker]\nclick [data-testid=tool-option][data-tool=\"{tool}\"]\nfill [data-testid=tool-args]={arguments}\nclick [data-testid=tool-call]",
		Close:        `[data-testid="view-close"]`,
		Cancel:       `[data-testid="tool-stop"]`,
		Agent:        AgentPresent,
		// OPEN_TOOL's new tab closes the last one, and its View.
		Views: ViewsReplaced,
	}
	hk := Hooks{
		Vars: []string{PhURL},
		Prepare: func(ctx context.Context, env hosts.Env) (map[string]string, func() error, error) {
			var err error
			srv, err = reference.NewServer(ctx, reference.ServerOptions{MCPServers: []string{env.ServerURL, env.SecondServerURL}})
			if err != nil {
				return nil, nil, err
			}
			return map[string]string{PhURL: srv.HostURL}, srv.Close, nil
		},
		ModelTools:      func(context.Context) (json.RawMessage, error) { return json.Marshal(srv.ModelToolNames()) },
		NewSessionTools: func(context.Context) (json.RawMessage, error) { return json.Marshal(srv.NewSessionToolNames()) },
	}
	h, err := New("reference-profile", p, hk)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range protocol.Kinds {
		if !hosts.Supports(h, k) {
			t.Errorf("the reference profile lacks %s", k)
		}
	}
	// One check per capability in CI (each mapping above driven once);
	// TestReferenceThroughEnvProfile runs the whole catalogue through a
	// profile of the same page, and this one does when extended.
	sel := runner.Selection{}
	if !e2etest.IsExtended() {
		sel = e2etest.DriverSample(t, h)
		sel.Globs = append(sel.Globs, "messages/add-to-conversation")
	}
	viaProfile, _ := compareWithReference(t, ctx, h, sel)
	for _, c := range viaProfile.Cases {
		if c.ID == "messages/add-to-conversation" && c.Status != protocol.StatusPass {
			t.Errorf("%s needs CONVERSATION: %s %s", c.ID, c.Status, c.Message)
		}
	}
}

// A host that asks the user to approve every tool call the View makes (the
// reference host's tool-call-approval variation) holds the suite's calls
// until someone approves them: APPROVE names the button, and the driver
// clicks it whenever it shows, so the checks that call tools pass.
// The reference page as a profile shows the suite: the steps a user takes
// (asking its agent in the composer) and the app iframe inside its card.
var (
	referenceSteps    = "goto {url}/\nfill [data-testid=composer]=" + reference.Prompt + "\nclick [data-testid=send]"
	referenceAppFrame = `iframe[data-testid="app-frame"]; iframe`
)

// referencePage is profile p (name) of a reference host page of its own
// with variations, started at Setup ({url}) and stopped at Teardown.
func referencePage(t *testing.T, name string, p Profile, variations ...string) hosts.Host {
	t.Helper()
	vs, err := reference.ParseVariations(variations)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(name, p, Hooks{
		Vars: []string{PhURL},
		Prepare: func(ctx context.Context, env hosts.Env) (map[string]string, func() error, error) {
			srv, err := reference.NewServer(ctx, reference.ServerOptions{MCPServers: []string{env.ServerURL, env.SecondServerURL}, Variations: vs})
			if err != nil {
				return nil, nil, err
			}
			return map[string]string{PhURL: srv.HostURL}, srv.Close, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestApproveAnswersAHostThatAsksBeforeEachToolCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h := referencePage(t, "approving", Profile{
		Steps:    referenceSteps,
		AppFrame: referenceAppFrame,
		Approve:  `[data-testid="dialog-tool-call"] [data-testid="dialog-confirm"]`,
	}, "tool-call-approval")
	var approvals []string
	var mu sync.Mutex
	e := env(t, time.Minute)
	e.Logf = func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if strings.Contains(msg, "approved a tool call") {
			mu.Lock()
			approvals = append(approvals, msg)
			mu.Unlock()
		}
		t.Log(msg)
	}
	hr, err := runner.Run(ctx, h, runner.Options{Env: e, Stall: 2 * time.Minute, Logf: t.Logf,
		Selection: runner.Selection{Globs: []string{"tools/*", "visibility/app-only-tool-callable", "visibility/model-only-tool-rejected"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hr.Cases) == 0 {
		t.Fatal("no check ran")
	}
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusPass && c.Status != protocol.StatusSkip {
			t.Errorf("%s: %s %q", c.ID, c.Status, c.Message)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(approvals) == 0 {
		t.Error("the driver approved no tool call: the host asks before each one, so the checks could not have called a tool")
	}
	t.Logf("%d checks, %d approvals", len(hr.Cases), len(approvals))
}

// sameTabOnly are the checks the reference host judges only when the
// probe View is in the tab that holds the conversation: its agent sends a
// View's app tools their calls, and its model-tools panel lists them, for
// the Views of its own page. A profile whose OPEN_TOOL opens the probe in
// another tab (goto) leaves them SKIP, which names why; the Go driver opens
// probes in the same page and PASSes them.
var sameTabOnly = map[string]bool{
	"tools/closed-app-tool-errors":     true,
	"tools/app-tools-gone-after-close": true,
	"tools/app-tools-limited":          true,
}

// compareWithReference compares a run of a with the reference host's Go
// driver without running it: it ends every check PASS
// (TestSuitePassesOnReferenceHost, in hosts/reference, runs it; a second
// run here would only repeat it).
func compareWithReference(t *testing.T, ctx context.Context, a hosts.Host, sel runner.Selection) (ra, rb report.HostRun) {
	t.Helper()
	return compareRunsWith(t, ctx, a, reference.New(), sel, func(ra report.HostRun) report.HostRun {
		rb := report.HostRun{Host: "reference"}
		for _, c := range ra.Cases {
			if !(sameTabOnly[c.ID] && c.Status == protocol.StatusSkip) {
				c.Status, c.Message = protocol.StatusPass, ""
			}
			rb.Cases = append(rb.Cases, c)
		}
		return rb
	})
}

// compareWithReview compares a run of a with a host's Go driver without
// running it: its e2e test holds every check to the review, so the
// review's status is the driver's.
func compareWithReview(t *testing.T, ctx context.Context, a, b hosts.Host, r hostreview.Review, sel runner.Selection) (ra, rb report.HostRun) {
	t.Helper()
	return compareRunsWith(t, ctx, a, b, sel, func(ra report.HostRun) report.HostRun {
		rb := report.HostRun{Host: b.Name()}
		for _, c := range ra.Cases {
			c.Status, c.Message = r.Status(c.ID), "(the review's status)"
			rb.Cases = append(rb.Cases, c)
		}
		return rb
	})
}

// compareRunsWith runs the suite (sel of it) through a and checks that every
// check whose needed capabilities a and b both have or both lack ends
// with the status known gives b (a TIMEOUT on one side only is logged as
// inconclusive, a few are tolerated: the per-check timers run out on a
// loaded machine). b itself is never run: its verdicts are known.
func compareRunsWith(t *testing.T, ctx context.Context, a, b hosts.Host, sel runner.Selection, known func(report.HostRun) report.HostRun) (ra, rb report.HostRun) {
	t.Helper()
	run := func(h hosts.Host) report.HostRun {
		t.Helper()
		start := time.Now()
		hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Stall: 2 * time.Minute, Logf: t.Logf, Selection: sel,
			OnCase: func(c report.Case) {
				if c.Duration > 10*time.Second {
					t.Logf("%s: %s took %s (%s %s)", h.Name(), c.ID, c.Duration.Round(time.Millisecond), c.Status, c.Message)
				}
			}})
		if err != nil {
			t.Fatalf("%s: %v", h.Name(), err)
		}
		t.Logf("%s: %d checks in %s", h.Name(), len(hr.Cases), time.Since(start).Round(time.Millisecond))
		return hr
	}
	ra = run(a)
	rb = known(ra)
	want := map[string]report.Case{}
	for _, c := range rb.Cases {
		want[c.ID] = c
	}
	counts := map[protocol.Status]int{}
	compared, inconclusive := 0, 0
	for _, c := range ra.Cases {
		counts[c.Status]++
		w, ok := want[c.ID]
		delete(want, c.ID)
		if !ok {
			t.Errorf("%s ran through %s only", c.ID, a.Name())
			continue
		}
		same := true
		for _, k := range c.Needs {
			same = same && hosts.Supports(a, k) == hosts.Supports(b, k)
		}
		if !same {
			t.Logf("not compared, the hosts differ in %v: %s %s / %s %s", c.Needs, c.ID, c.Status, w.Status, w.Message)
			continue
		}
		compared++
		switch {
		case c.Status == w.Status:
		case c.Status == protocol.StatusTimeout || w.Status == protocol.StatusTimeout:
			// A per-check timer ran out on one side: a slow machine, not
			// a difference between the hosts (bounded below).
			inconclusive++
			t.Logf("inconclusive: %s: %s %q through %s, %s %q through %s", c.ID, c.Status, c.Message, a.Name(), w.Status, w.Message, b.Name())
		default:
			t.Errorf("%s: %s %q through %s, %s %q through %s", c.ID, c.Status, c.Message, a.Name(), w.Status, w.Message, b.Name())
		}
	}
	if limit := max(3, len(ra.Cases)/10); inconclusive > limit {
		t.Errorf("%d checks timed out on one side only (more than %d): the hosts differ, or the machine is far too slow", inconclusive, limit)
	}
	for id := range want {
		t.Errorf("%s ran through %s only", id, b.Name())
	}
	t.Logf("%s: %v; %d of %d checks compared", a.Name(), counts, compared, len(ra.Cases))
	if compared < len(ra.Cases)*3/4 || counts[protocol.StatusPass] < len(ra.Cases)/2 {
		t.Errorf("only %d checks compared, %d passed, of %d", compared, counts[protocol.StatusPass], len(ra.Cases))
	}
	return ra, rb
}

// Wrong profiles fail fast, naming the variable and step to fix, with a
// screenshot of the page.
func TestWrongProfilesFailFast(t *testing.T) {
	url, token := startInspector(t)
	base := func(name string) map[string]string {
		vars := map[string]string{}
		for k, v := range docProfile(t, url, token) {
			vars[strings.Replace(k, "_INSP_", "_"+name+"_", 1)] = v
		}
		return vars
	}
	deepLink := fmt.Sprintf("goto {url}/?serverUrl={server}&transport=http&autoConnect=%s&openApp=conformance_suite\nwait-for [data-testid=connection-status][data-status=connected]\n", token)

	t.Run("missing variable", func(t *testing.T) {
		vars := base("X")
		delete(vars, "MCPCONFORM_X_URL")
		_, err := Lookup("x", envconfig.MapLookuper(vars))
		if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), "MCPCONFORM_X_URL is not set") {
			t.Fatalf("want ErrProfile naming MCPCONFORM_X_URL, got %v", err)
		}
		vars["MCPCONFORM_X_URL"] = "" // an unset CI secret
		_, err = Lookup("x", envconfig.MapLookuper(vars))
		if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), "MCPCONFORM_X_URL is set but empty") {
			t.Fatalf("want ErrProfile naming the empty MCPCONFORM_X_URL, got %v", err)
		}
	})

	t.Run("selector that never appears", func(t *testing.T) {
		// A page of our own: the failure is the step's, to the second.
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `<!doctype html><title>chat</title><textarea></textarea><button data-testid="send">Send</button>`)
		}))
		defer page.Close()
		vars := map[string]string{
			"MCPCONFORM_NOSEL_URL":          page.URL,
			"MCPCONFORM_NOSEL_STEPS":        "goto {url}\nfill textarea=Run the suite {nonce}\nclick [data-testid=\"no-such-button\"]\nclick [data-testid=send]",
			"MCPCONFORM_NOSEL_STEP_TIMEOUT": "3s",
		}
		hr, err, se := failSetup(t, "nosel", vars, time.Minute)
		if !errors.Is(err, ErrStep) || errors.Is(err, ErrProfile) {
			t.Fatalf("want ErrStep, got %v", err)
		}
		saysAll(t, err, hr.Infra, "MCPCONFORM_NOSEL_STEPS step 3", `click [data-testid="no-such-button"]`, `no element matches the selector "[data-testid=\"no-such-button\"]" within 3s`, "MCPCONFORM_NOSEL_STEP_TIMEOUT")
		// The step's own timeout, not the app timeout (a minute here).
		if se.Elapsed < 3*time.Second || se.Elapsed > 10*time.Second {
			t.Errorf("the step failed after %s with STEP_TIMEOUT=3s", se.Elapsed)
		}
		wantPNG(t, se.Screenshot, "nosel-setup-step3-")
	})

	t.Run("app never shown", func(t *testing.T) {
		vars := base("NEVER")
		vars["MCPCONFORM_NEVER_STEPS"] = deepLink // connects, never opens the app
		hr, err, se := failSetup(t, "never", vars, 4*time.Second)
		if !errors.Is(err, ErrAppNotShown) || !errors.Is(err, bridge.ErrNoSuite) {
			t.Fatalf("want ErrAppNotShown, got %v", err)
		}
		saysAll(t, err, hr.Infra, "MCPCONFORM_NEVER_APP_FRAME", "[data-testid=apps-form] iframe; iframe", "MCPCONFORM_NEVER_STEPS", "within 4s")
		if se.Elapsed < 4*time.Second || se.Elapsed > 12*time.Second {
			t.Errorf("waiting for the app failed after %s with --app-timeout 4s", se.Elapsed)
		}
		wantPNG(t, se.Screenshot, "never-setup-app-not-shown-")
		// Playwright's call log after the frame chain's error once cut the
		// message before the chain's closing parenthesis.
		if m := err.Error(); strings.Count(m, "(") != strings.Count(m, ")") {
			t.Errorf("unbalanced parentheses: %s", m)
		}
	})

	t.Run("selector the browser rejects", func(t *testing.T) {
		vars := base("BADSEL")
		vars["MCPCONFORM_BADSEL_STEPS"] = "goto {url}\nclick div:::nope"
		start := time.Now()
		_, err, _ := failSetup(t, "badsel", vars, time.Minute)
		d := time.Since(start)
		if !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), "MCPCONFORM_BADSEL_STEPS step 2") || !strings.Contains(err.Error(), "div:::nope") {
			t.Fatalf("want ErrProfile naming step 2, got %v", err)
		}
		if d > 10*time.Second {
			t.Errorf("a malformed selector took %s to notice", d)
		}
	})
}

// failSetup runs the suite through profile name and expects Setup to fail
// as an infrastructure error recorded in the run; it returns the run, the
// error and the *SetupError in it (zero when the error is another kind).
func failSetup(t *testing.T, name string, vars map[string]string, appTimeout time.Duration) (report.HostRun, error, SetupError) {
	t.Helper()
	h, err := Lookup(name, envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	// The run's evidence directory: the host's own screenshot goes into
	// its folder for the host (hosts.Env.EvidenceDir), as the runner's do.
	evidence := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, appTimeout), Logf: t.Logf, EvidenceDir: evidence})
	var ie *runner.InfraError
	if !errors.As(err, &ie) || !errors.Is(err, runner.ErrHostSetup) || hr.Infra == "" {
		t.Fatalf("want a host-setup infrastructure error recorded in the run, got %v", err)
	}
	t.Logf("%s failed after %s: %v", name, time.Since(start).Round(time.Millisecond), err)
	var se *SetupError
	if !errors.As(err, &se) {
		return hr, err, SetupError{}
	}
	if se.Screenshot == "" || !strings.Contains(err.Error(), "screenshot: "+se.Screenshot) {
		t.Errorf("the message does not name a screenshot: %v", err)
	}
	if want := filepath.Join(evidence, name); filepath.Dir(se.Screenshot) != want {
		t.Errorf("screenshot %s is not in the run's evidence directory for the host, %s", se.Screenshot, want)
	}
	return hr, err, *se
}

func wantPNG(t *testing.T, path, prefix string) {
	t.Helper()
	if !strings.HasPrefix(filepath.Base(path), prefix) {
		t.Errorf("screenshot %q is not named %s*", path, prefix)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("no PNG screenshot at %q: %v", path, err)
	}
}

// saysAll fails the test for each of words that the setup error err or the
// run's infrastructure message infra does not say.
func saysAll(t *testing.T, err error, infra string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(err.Error(), w) || !strings.Contains(infra, w) {
			t.Errorf("the error does not say %q: %v", w, err)
		}
	}
}

// A profile that opens tools in the suite's page of a host that keeps
// every View (VIEWS=kept, OPEN_TOOL_PAGE=same) has the probe checks run side
// by side, as the reference host's Go driver has them: every check the Go
// driver PASSes passes, and at least two probe checks overlap in time.
func TestProfileWithViewsKeptRunsProbeChecksSideBySide(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h := referencePage(t, "kept", Profile{
		Steps:        referenceSteps,
		AppFrame:     referenceAppFrame,
		OpenTool:     "click [data-testid=tool-picker]\nclick [data-testid=tool-option][data-tool=\"{tool}\"]\nfill [data-testid=tool-args]={arguments}\nclick [data-testid=tool-call]",
		OpenToolPage: OpenToolSame,
		Close:        `[data-testid="view-close"]`,
		Cancel:       `[data-testid="tool-stop"]`,
		Views:        ViewsKept,
	})
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Stall: 2 * time.Minute, Logf: t.Logf,
		Selection: runner.Selection{Globs: []string{"csp/*", "lifecycle/*", "negotiation/*"}}})
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		id         string
		start, end time.Time
	}
	var probes []span
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusPass {
			t.Errorf("%s: %s %q (the Go driver PASSes it)", c.ID, c.Status, c.Message)
		}
		if slices.Contains(c.Needs, protocol.KindOpenTool) && !c.StartedAt.IsZero() {
			probes = append(probes, span{c.ID, c.StartedAt, c.StartedAt.Add(c.Duration)})
		}
	}
	overlap := ""
	for i, a := range probes {
		for _, b := range probes[i+1:] {
			if a.start.Before(b.end) && b.start.Before(a.end) {
				overlap = a.id + " and " + b.id
			}
		}
	}
	if overlap == "" {
		t.Errorf("no two of the %d probe checks ran at once: VIEWS=kept did not take them side by side", len(probes))
	} else {
		t.Logf("side by side: %s, among others", overlap)
	}
}
