//go:build unix

package generic

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/loopback"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// devProfile is the documented profile of a local development host
// (<!-- profile:dev -->), pointed at url.
func devProfile(t *testing.T, url string) map[string]string {
	t.Helper()
	vars := docBlock(t, "dev", "MCPCONFORM_DEV_")
	if !strings.Contains(vars["MCPCONFORM_DEV_OPEN_TOOL"], "fill-form") {
		t.Fatalf("the example exports %v", vars)
	}
	vars["MCPCONFORM_DEV_URL"] = url
	return vars
}

// withoutModel are the capabilities the documented profile leaves unset:
// a development host without a model has no conversation to read, no tool
// list the model sees, and (this one) no theme switch.
var withoutModel = []protocol.Kind{protocol.KindConversationContains, protocol.KindMessageRole, protocol.KindReadModelToolList, protocol.KindToggleTheme}

// notOffered are the checks of what the development host does not offer
// (optional in the spec), which the suite skips on its own.
var notOffered = map[string]bool{
	"display/undeclared-mode-refused": true, // no pip mode
	"visibility/cross-server-blocked": true, // one server at a time
	"sampling/create-message":         true, // no sampling
	// It states a fixed width ({width, maxHeight}): the width is the host's.
	"sizing/size-changed-width-applied": true,
	// No app-provided tools (the draft's "the Host can send"): it never
	// lists a View's tools, so there is nothing to list, throttle or
	// remove (the last also needs the model's tool list).
	"tools/app-tools-listed":           true,
	"tools/list-changed-throttled":     true,
	"tools/app-tools-gone-after-close": true,
	"tools/app-tools-limited":          true,
	// Nor can a new session's tool list be read.
	"tools/app-tools-not-persisted": true,
}

// isProbeCheck reports whether a check that needs these needs a probe
// View, which openTool opens.
func isProbeCheck(needs []protocol.Kind) bool { return slices.Contains(needs, protocol.KindOpenTool) }

// Issue #28, proof: a host page of the shape a host team builds first
// (testdata/devhost: a tool list, a form with one field per argument,
// Views in a sandbox proxy on another port, its own "Allow download?"
// modal, Close and Stop on each View's card, no model, its MCP client in
// the page calling {server} directly) is described by the profile
// docs/profiles.md gives for it. The profile passes `mcpconform hosts
// --check`, and one run of the catalogue judges every probe check: each
// ends PASS (the host does what they ask), none is skipped for want of a
// way to open, close or stop a View, and no check fails.
func TestDevelopmentHostThroughTheDocumentedProfile(t *testing.T) {
	mcpconformOnPath(t)
	dev := startDevHost(t, "")
	vars := devProfile(t, dev.URL)

	// The command a user runs, with only the profile's variables set.
	cmd := exec.Command("mcpconform", "hosts", "--check", "dev")
	cmd.Env = []string{"PATH=" + binDir}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "profile dev: OK") || strings.Contains(out.String(), "warning:") {
		t.Fatalf("mcpconform hosts --check dev: %v\n%s", err, out.String())
	}
	t.Logf("hosts --check dev:\n%s", out.String())

	h, err := Lookup("dev", envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []protocol.Kind{protocol.KindOpenTool, protocol.KindCloseView, protocol.KindCancelTool, protocol.KindConfirmDialog} {
		if !hosts.Supports(h, k) {
			t.Errorf("the documented profile does not give %s", k)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Stall: 2 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if hr.HostName != "devhost" {
		t.Errorf("hostInfo.name %q, want devhost", hr.HostName)
	}
	judged := map[string]bool{}
	counts := map[protocol.Status]int{}
	for _, c := range hr.Cases {
		judged[c.ID] = true
		counts[c.Status]++
		lacks := slices.ContainsFunc(c.Needs, func(k protocol.Kind) bool { return slices.Contains(withoutModel, k) })
		switch {
		case isProbeCheck(c.Needs) && !notOffered[c.ID] && !lacks:
			if c.Status != protocol.StatusPass {
				t.Errorf("probe check %s: %s %q, want PASS", c.ID, c.Status, c.Message)
			}
		case c.Status == protocol.StatusSkip:
			// Only for what a host without a model has no way to give,
			// or what this host does not offer.
			if !lacks && !notOffered[c.ID] {
				t.Errorf("%s: SKIP %q, but it needs only %v, which the profile gives", c.ID, c.Message, c.Needs)
			}
		case c.Status != protocol.StatusPass:
			t.Errorf("%s: %s %q", c.ID, c.Status, c.Message)
		}
	}
	// Every check of the catalogue ran, the probe checks among them.
	probes := 0
	for _, m := range e2etest.Catalogue(t).Tests {
		if isProbeCheck(m.Needs) {
			probes++
		}
		if !judged[m.ID] {
			t.Errorf("%s (needs %v) did not run", m.ID, m.Needs)
		}
	}
	t.Logf("devhost: %d checks, %v; %d probe checks", len(hr.Cases), counts, probes)
	if probes == 0 {
		t.Error("the catalogue has no probe check")
	}
}

// Issue #28: a host configured once with the fixture server's URL (the
// development host's backend holds it, the page connects on load) works
// run after run when the fixture server has a fixed port: two runs in a
// row, each on fixture servers started anew on the same port, reach the
// suite and judge the checks that need the server.
func TestFixedFixturePortTwiceAgainstAHostConfiguredOnce(t *testing.T) {
	e := env(t, time.Minute) // the package's browser
	p1, p2 := loopback.FreePort(t), loopback.FreePort(t)
	dev := startDevHost(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", p1))
	vars := map[string]string{
		"MCPCONFORM_ONCE_URL":       dev.URL,
		"MCPCONFORM_ONCE_STEPS":     "goto {url}/\nclick [data-tool=conformance_suite]\nfill #tool-form [name=nonce]={nonce}\nclick #tool-form button:text-is(\"Call tool\")",
		"MCPCONFORM_ONCE_APP_FRAME": ".card[data-tool=conformance_suite] iframe; iframe",
	}
	for run := 1; run <= 2; run++ {
		fx, err := fixtures.StartWith(context.Background(), fixtures.Options{MainPort: p1, SecondPort: p2})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		h, err := Lookup("once", envconfig.MapLookuper(vars))
		if err != nil {
			t.Fatal(err)
		}
		e.ServerURL, e.SecondServerURL = fx.Main.URL, fx.Second.URL
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		hr, err := runner.Run(ctx, h, runner.Options{Env: e, Stall: time.Minute, Logf: t.Logf,
			Selection: runner.Selection{Globs: []string{"negotiation/ui-extension-advertised", "lifecycle/tool-input-complete", "lifecycle/initialize-result"}}})
		cancel()
		fx.Close()
		if err != nil {
			t.Fatalf("run %d on fixture port %d: %v", run, p1, err)
		}
		if len(hr.Cases) != 3 {
			t.Errorf("run %d: %d checks", run, len(hr.Cases))
		}
		for _, c := range hr.Cases {
			if c.Status != protocol.StatusPass {
				t.Errorf("run %d: %s: %s %q", run, c.ID, c.Status, c.Message)
			}
		}
	}
}
