package reference_test

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// One browser and one pair of fixture servers for the whole package, as in
// production: starting the driver is the expensive part. They start with
// the first test that needs them (e2etest), so unit tests run without.
func TestMain(m *testing.M) { e2etest.Main(m) }

// e2e is the package's browser and fixture servers; without Chromium the
// test skips.
var e2e = e2etest.Parts

// fixtureSet is the started fixture servers, for helpers of tests that
// called e2e or env.
func fixtureSet() *fixtures.Set { return e2etest.Started().Fixtures }

func env(t testing.TB) hosts.Env {
	t.Helper()
	return e2etest.Env(t, 30*time.Second)
}

// The whole suite against the defect-free reference host: every check
// passes. This is the known-good baseline every other verdict rests on.
func TestSuitePassesOnReferenceHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var live []string
	// An unarmed run (the evaluate bridge) never calls the relay tool: the
	// relay's e2e no longer makes an evaluate run of its own to see it.
	hub := e2etest.Session(t).Fixtures.MainServer.Relay()
	calls0 := hub.RelayCalls()
	hr, err := runner.Run(ctx, reference.New(), runner.Options{
		Env:    env(t),
		Stall:  time.Minute,
		OnCase: func(c report.Case) { live = append(live, c.ID) },
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := hub.RelayCalls() - calls0; n != 0 {
		t.Errorf("the evaluate run made %d relay calls: an unarmed run's View must never call the relay", n)
	}
	if len(hr.Cases) < 12 {
		t.Fatalf("only %d cases ran, want at least 12", len(hr.Cases))
	}
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusPass {
			t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
		}
	}
	if len(live) != len(hr.Cases) {
		t.Errorf("OnCase saw %d cases, the run has %d", len(live), len(hr.Cases))
	}
	if hr.HostName != "mcpconform-reference" || hr.HostVersion != reference.Version {
		t.Errorf("hostInfo not carried into the report: %q %q", hr.HostName, hr.HostVersion)
	}
	if !strings.Contains(string(hr.Capabilities), "serverTools") || !strings.Contains(string(hr.Context), `"theme"`) {
		t.Errorf("hostCapabilities/hostContext not carried into the report: %s %s", hr.Capabilities, hr.Context)
	}
	if hr.Duration <= 0 || hr.SuiteVersion == "" || hr.Browser == "" {
		t.Errorf("run metadata missing: duration %v, suite %q, browser %q", hr.Duration, hr.SuiteVersion, hr.Browser)
	}
}

// The seed's capability-or-fallback check takes its fallback path when the
// host cannot read the model's tool list: it asks the agent through
// ui/message and a real click, and scans the conversation.
func TestAppToolHiddenFallbackPath(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, withoutToolList{lifeOnly{reference.New()}}, runner.Options{
		Env:       env(t),
		Selection: runner.Selection{Globs: []string{"visibility/app-tool-hidden"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hr.Cases) != 1 || hr.Cases[0].Status != protocol.StatusPass {
		t.Fatalf("want one PASS, got %+v", hr.Cases)
	}
}

// lifeOnly is the reference host's life (setup, binding, teardown) with
// none of its capabilities: a wrapper adds the ones it exposes.
type lifeOnly struct{ h *reference.Host }

func (l lifeOnly) Setup(ctx context.Context, e hosts.Env) error { return l.h.Setup(ctx, e) }
func (l lifeOnly) BindSuite(ctx context.Context, d time.Duration) (hosts.SuiteBridge, error) {
	return l.h.BindSuite(ctx, d)
}
func (l lifeOnly) Teardown(ctx context.Context) error { return l.h.Teardown(ctx) }

// withoutToolList hides ReadModelToolList (and every other capability but
// the ones the fallback path needs) from the runner.
type withoutToolList struct{ lifeOnly }

func (w withoutToolList) Name() string { return "reference-no-toollist" }
func (w withoutToolList) ClickTrigger(ctx context.Context, r protocol.Request) (protocol.Result, error) {
	return w.h.ClickTrigger(ctx, r)
}
func (w withoutToolList) ConversationContains(ctx context.Context, r protocol.Request) (protocol.Result, error) {
	return w.h.ConversationContains(ctx, r)
}

// A host with no capabilities at all: every check that needs one skips at
// once with the capability named, instead of timing out.
func TestMissingCapabilitiesSkip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	hr, err := runner.Run(ctx, bare{lifeOnly{reference.New()}}, runner.Options{Env: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, c := range hr.Cases {
		if c.Status == protocol.StatusSkip {
			skipped[c.ID] = c.Message
		} else if c.Status != protocol.StatusPass {
			t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
		}
	}
	// The contract's wording (hosts.UnsupportedReason) with, where the check
	// says what it needed the capability for, that context before the
	// part that says how to provide it.
	skip := func(k protocol.Kind, context string) string {
		r := hosts.UnsupportedReason(k, "", "")
		if context == "" {
			return r
		}
		why, how, _ := strings.Cut(r, "; to make it judgeable: ")
		return why + "; " + context + "; to make it judgeable: " + how
	}
	noAgent := skip(protocol.KindClickTrigger, "needed to send the agent control question through the suite's trigger")
	for id, want := range map[string]string{
		"context/theme-change-notifies": skip(protocol.KindToggleTheme, ""),
		"visibility/app-tool-hidden":    skip(protocol.KindReadModelToolList, "nor can the agent be asked for its tools instead: "+noAgent),
		"messages/add-to-conversation":  skip(protocol.KindClickTrigger, ""),
		"links/open-link":               skip(protocol.KindClickTrigger, ""),
		"model-context/next-turn":       noAgent,
		"security/view-sandboxed":       skip(protocol.KindInspectFrame, ""),
		"security/proxy-permissions":    skip(protocol.KindInspectFrame, ""),
		"sampling/create-message":       skip(protocol.KindConfirmDialog, "sampling/createMessage got no answer, and the host may be waiting for an approval the driver cannot give"),
	} {
		if got, ok := skipped[id]; !ok || got != want {
			t.Errorf("%s: want SKIP %q, got %q (skipped=%v)", id, want, got, ok)
		}
	}
	if d := time.Since(start); d > 90*time.Second {
		t.Errorf("unsupported capabilities took %s: they must answer at once", d)
	}
}

// setUpReference sets a reference host up for the suite within timeout;
// the test's cleanup tears it down (before the context ends).
func setUpReference(t *testing.T, timeout time.Duration) (context.Context, *reference.Host, *bridge.Suite) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	h := reference.New()
	sb, err := runner.SetUp(ctx, h, runner.Options{Env: env(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Teardown(ctx) })
	return ctx, h, sb.(*bridge.Suite)
}

// bare is the reference host with no capability at all.
type bare struct{ lifeOnly }

func (b bare) Name() string { return "reference-bare" }

// Polling must not give the app frame user activation, or clickTrigger
// would prove nothing; a real click must.
func TestPollingGivesNoUserActivation(t *testing.T) {
	ctx, h, s := setUpReference(t, time.Minute)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		if _, err := s.Poll(ctx, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListTests(ctx); err != nil {
			t.Fatal(err)
		}
	}
	before, err := s.Trigger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.HasBeenActive {
		t.Fatal("after two seconds of polling the app frame has user activation: polling runs with a user gesture")
	}
	r, err := h.ClickTrigger(ctx, protocol.Request{Kind: protocol.KindClickTrigger})
	if err != nil || !r.OK {
		t.Fatalf("clickTrigger: %v %+v", err, r)
	}
	after, err := s.Trigger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !after.HasBeenActive || !after.LastClickTrusted || after.Clicks != before.Clicks+1 {
		t.Fatalf("after clickTrigger: want activation and one trusted click, got %+v", after)
	}
}

// The activation check above can fail: Playwright's own evaluate does give
// the frame activation, and the same observation catches it.
func TestPlaywrightEvaluateDoesGiveActivation(t *testing.T) {
	ctx, _, s := setUpReference(t, time.Minute)
	if _, err := s.Frame().Evaluate("() => 1"); err != nil {
		t.Fatal(err)
	}
	ti, err := s.Trigger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !ti.HasBeenActive {
		t.Fatal("a Playwright evaluate did not activate the frame: the activation check would not notice gesture polling")
	}
}

// TestScreenshotForREADME refreshes docs/reference-host.png: the host page
// after a full passing run. It runs only when asked:
//
//	MCPCONFORM_SCREENSHOT=../../docs/reference-host.png go test -run Screenshot ./hosts/reference/
func TestScreenshotForREADME(t *testing.T) {
	out := os.Getenv("MCPCONFORM_SCREENSHOT")
	if out == "" {
		t.Skip("set MCPCONFORM_SCREENSHOT=path to refresh the README screenshot")
	}
	ctx, h, sb := setUpReference(t, 3*time.Minute)
	hr, err := runner.Drive(ctx, sb, h, runner.Options{}, report.HostRun{Host: "reference"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hr.Cases {
		if c.Status != protocol.StatusPass {
			t.Fatalf("%s: %s", c.ID, c.Status)
		}
	}
	if _, err := h.Page.Screenshot(playwright.PageScreenshotOptions{Path: &out}); err != nil {
		t.Fatal(err)
	}
}

// probeChecks are the checks that open a probe View (launchProbe).
var probeChecks = []string{
	"negotiation/ui-resource-read", "negotiation/annotated-tool-rendered", "negotiation/legacy-resource-uri", "negotiation/ui-meta-listing-fallback",
	"negotiation/ui-meta-content-precedence", "lifecycle/result-after-delay", "lifecycle/result-with-resource-link", "lifecycle/tool-cancelled",
	"lifecycle/teardown-sent", "lifecycle/teardown-awaited", "lifecycle/request-teardown", "lifecycle/request-teardown-awaited", "csp/default-restrictive",
	"csp/default-object-src", "csp/declared-frame-allowed", "csp/policy-declared-only",
}

// Where the model's tool list cannot be read, visibility/app-tool-hidden
// asks the agent for its tools and reads its answer: that path passes on
// the reference host and turns red under each defect that offers the model
// a tool without "model" in its visibility, the app-only tool
// (app-only-tools-to-model) or only the one whose visibility is []
// (model-list-guard-exact, an exact-array filter). Before 2026-12-06 the
// agent path looked for the app-only tool alone and passed the second.
func TestAppToolHiddenThroughTheAgent(t *testing.T) {
	for _, c := range []struct {
		defect string
		leaks  []string
	}{{"", nil}, {"app-only-tools-to-model", []string{mcpserver.ToolProbe, mcpserver.ToolNoVisibility}}, {"model-list-guard-exact", []string{mcpserver.ToolNoVisibility}}} {
		t.Run(cmp.Or(c.defect, "none"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			var ds reference.DefectSet
			if c.defect != "" {
				var err error
				if ds, err = reference.ParseDefects([]string{c.defect}); err != nil {
					t.Fatal(err)
				}
			}
			h := reference.NewWith(ds, reference.VariationSet{"model-tool-list-unread": true})
			hr, err := runner.Run(ctx, h, runner.Options{Env: env(t), Stall: 2 * time.Minute, Selection: runner.Selection{Globs: []string{"visibility/app-tool-hidden"}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(hr.Cases) != 1 {
				t.Fatalf("%d checks ran, want 1", len(hr.Cases))
			}
			// Without readModelToolList a PASS comes only from the agent's
			// answer, and a FAIL says it asked.
			cs := hr.Cases[0]
			if c.leaks == nil {
				if cs.Status != protocol.StatusPass {
					t.Errorf("without a defect: %s %s, want PASS", cs.Status, cs.Message)
				}
				return
			}
			if cs.Status != protocol.StatusFail {
				t.Fatalf("under %s: %s %s, want FAIL", c.defect, cs.Status, cs.Message)
			}
			if !strings.Contains(cs.Message, "asked for its tools, the agent's answer") {
				t.Errorf("under %s the check did not judge the agent's answer: %s", c.defect, cs.Message)
			}
			for _, name := range []string{mcpserver.ToolProbe, mcpserver.ToolNoVisibility} {
				if named := strings.Contains(cs.Message, "also names "+name) || strings.Contains(cs.Message, "and "+name+":"); named != slices.Contains(c.leaks, name) {
					t.Errorf("under %s the message names %s as leaked: %v, want %v: %s", c.defect, name, named, slices.Contains(c.leaks, name), cs.Message)
				}
			}
		})
	}
}

// The probe checks pass through either path of launchProbe: with no agent
// (no-agent) only openTool, the host's own tool picker, can open the probe
// Views; without a tool picker (no-open-tool) only the agent can.
func TestProbeChecksThroughOpenToolAndAgent(t *testing.T) {
	for _, c := range []struct {
		variation string
		openTool  bool
	}{{"no-agent", true}, {"no-open-tool", false}} {
		t.Run(c.variation, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			vs, err := reference.ParseVariations([]string{c.variation})
			if err != nil {
				t.Fatal(err)
			}
			h := reference.NewWith(nil, vs)
			if got := hosts.Supports(h, protocol.KindOpenTool); got != c.openTool {
				t.Fatalf("under %s the host supports openTool: %v, want %v", c.variation, got, c.openTool)
			}
			hr, err := runner.Run(ctx, h, runner.Options{Env: env(t), Stall: 2 * time.Minute, Selection: runner.Selection{Globs: probeChecks}})
			if err != nil {
				t.Fatal(err)
			}
			if len(hr.Cases) != len(probeChecks) {
				t.Errorf("%d checks ran, want %d", len(hr.Cases), len(probeChecks))
			}
			for _, cs := range hr.Cases {
				if cs.Status != protocol.StatusPass {
					t.Errorf("%s: %s %s", cs.ID, cs.Status, cs.Message)
				}
				if !slices.Contains(cs.Needs, protocol.KindOpenTool) {
					t.Errorf("%s needs %v: openTool is missing, so reports cannot tell how its probe View opened", cs.ID, cs.Needs)
				}
			}
		})
	}
}
