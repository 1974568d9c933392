//go:build unix

package generic

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// mcpconformOnPath builds the mcpconform binary once into a directory of
// its own and puts that directory first on PATH, as a user who installed
// it has it: the documented START runs `mcpconform serve`.
func mcpconformOnPath(t *testing.T) {
	t.Helper()
	e2etest.SkipShort(t) // no build for a test -short skips anyway
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "mcpconform-bin-")
		if binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "mcpconform"), "../../cmd/mcpconform").CombinedOutput()
		if err != nil {
			binErr = &buildError{err, string(out)}
		}
	})
	if binErr != nil {
		t.Fatalf("building mcpconform: %v", binErr)
	}
	t.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// refProfile is the documented START example (<!-- profile:ref -->): its
// MCPCONFORM_REF_* variables.
func refProfile(t *testing.T) map[string]string {
	t.Helper()
	vars := docBlock(t, "ref", "MCPCONFORM_REF_")
	if !strings.Contains(vars["MCPCONFORM_REF_START"], "mcpconform serve") {
		t.Fatalf("the example exports %v", vars)
	}
	return vars
}

// refWithDefect is a generic host on the documented START example, its
// `serve` given --host-defect defect.
func refWithDefect(t *testing.T, defect string) hosts.Host {
	t.Helper()
	vars := refProfile(t)
	vars["MCPCONFORM_REF_START"] += " --host-defect " + defect
	h, err := Lookup("ref", envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Done when (#14): the reference host driven through a profile given only
// as environment variables (the documented START example: `mcpconform
// serve` started by the profile, no Go hooks) ends every check as
// `--host reference` does, and the profile has every capability (in CI,
// every check of e2etest.DriverSample; every check of the catalogue when
// extended).
func TestReferenceThroughEnvProfile(t *testing.T) {
	mcpconformOnPath(t)
	vars := refProfile(t)
	l := envconfig.MapLookuper(vars)
	r := Check("ref", l)
	if !r.OK() {
		t.Fatalf("hosts --check ref: %v", r.Err)
	}
	if len(r.Unsupported) != 0 {
		t.Errorf("hosts --check ref lists unsupported capabilities: %v (%v)", r.Unsupported, r.Why)
	}
	h, err := Lookup("ref", l)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// In CI one check per capability and the checks below (the whole
	// catalogue runs through a profile in CI on the development host,
	// TestDevelopmentHostThroughTheDocumentedProfile); the whole
	// catalogue here when extended.
	sel := runner.Selection{}
	if !e2etest.IsExtended() {
		sel = e2etest.DriverSample(t, h)
		sel.Globs = append(sel.Globs, "visibility/app-tool-hidden", "lifecycle/teardown-sent", "lifecycle/tool-cancelled", "messages/add-to-conversation", "messages/role-preserved")
	}
	viaProfile, viaDriver := compareWithReference(t, ctx, h, sel)
	// Not a vacuous agreement: the checks of the new variables are judged
	// the same way through the profile as through the Go driver.
	status := map[string]protocol.Status{}
	for _, c := range viaDriver.Cases {
		status[c.ID] = c.Status
	}
	for _, c := range viaProfile.Cases {
		switch c.ID {
		case "visibility/app-tool-hidden", "lifecycle/teardown-sent", "lifecycle/tool-cancelled", "messages/add-to-conversation", "messages/role-preserved":
			if c.Status != protocol.StatusPass {
				t.Errorf("%s: %s %s through the profile (needs %v)", c.ID, c.Status, c.Message, c.Needs)
			}
		}
		for _, k := range c.Needs {
			if k == protocol.KindCheckDownload && c.Status == protocol.StatusSkip {
				t.Errorf("%s skipped through the profile although checkDownload is every browser host's: %s", c.ID, c.Message)
			}
		}
	}
}

// The profile's OPEN_TOOL, CANCEL, CLOSE and MODEL_TOOLS drive the
// reference page for real: the tool picker in a new tab shows the probe's
// View, Stop cancels its running call and the close button removes it; the
// model's tool list read from the page carries a defect that corrupts it.
// START's process group is gone after Teardown.
func TestEnvProfileCapabilitiesOnTheReferencePage(t *testing.T) {
	mcpconformOnPath(t)
	h := refWithDefect(t, "app-only-tools-to-model")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := runner.SetUp(ctx, h, runner.Options{Env: env(t, time.Minute)}); err != nil {
		t.Fatal(err)
	}
	core, _ := Unwrap(h)
	port := core.vars[PhPort]
	torn := false
	defer func() {
		if !torn {
			h.Teardown(context.Background())
		}
	}()

	// The defect puts the app-only probe tool into the model's list, and
	// the page's list shows it.
	res := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindReadModelToolList})
	var tools []string
	if !res.OK || json.Unmarshal(res.Value, &tools) != nil {
		t.Fatalf("readModelToolList: %+v", res)
	}
	if !slices.Contains(tools, "conformance_probe") || !slices.Contains(tools, "model_only_probe") || !slices.Contains(tools, reference.SuiteTool) {
		t.Errorf("the model's tool list read through MODEL_TOOLS: %v", tools)
	}

	open := func(probe string, delayMs int) {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"probe": probe, "delayMs": delayMs})
		r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindOpenTool, Tool: "conformance_slow", Arguments: args})
		if !r.OK {
			t.Fatalf("openTool: %s", r.Error)
		}
	}
	waitView := func(marker string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			if p, _, _ := core.viewShowing(marker); p != nil {
				if p == core.Page {
					t.Errorf("the View of %s is in the suite's page, not a new tab", marker)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no View shows %s 20 s after openTool", marker)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	pages := len(core.Ctx.Pages())
	open("p-cancel-1", 60_000)
	if n := len(core.Ctx.Pages()); n != pages+1 {
		t.Errorf("openTool opened %d tabs, want 1", n-pages)
	}
	waitView("p-cancel-1")
	if r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindCancelTool, Marker: "p-cancel-1"}); !r.OK {
		t.Errorf("cancelTool: %s", r.Error)
	}
	open("p-close-1", 0)
	// One tool tab at a time: the previous one was closed.
	if n := len(core.Ctx.Pages()); n != pages+1 {
		t.Errorf("%d tabs after the second openTool, want %d", n, pages+1)
	}
	waitView("p-close-1")
	if r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindCloseView, Marker: "p-close-1"}); !r.OK {
		t.Errorf("closeView: %s", r.Error)
	}
	if p, _, _ := core.viewShowing("p-close-1"); p != nil {
		t.Error("the closed View is still shown")
	}
	if r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindCloseView, Marker: "no-such-view"}); r.OK || !strings.Contains(r.Error, `no View displays "no-such-view"`) {
		t.Errorf("closeView of no View: %+v", r)
	}
	// resetIsolation closes the tabs OPEN_TOOL opened.
	if r := hosts.Dispatch(ctx, h, protocol.Request{Kind: protocol.KindResetIsolation}); !r.OK {
		t.Errorf("resetIsolation: %s", r.Error)
	}
	if n := len(core.Ctx.Pages()); n != 1 {
		t.Errorf("%d pages after resetIsolation, want 1", n)
	}

	torn = true
	if err := h.Teardown(context.Background()); err != nil {
		t.Errorf("teardown: %v", err)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Errorf("mcpconform serve still listens on %s after Teardown", port)
	}
}

// A defect that corrupts the model's tool list is caught through the
// profile alone: with `serve --host-defect app-only-tools-to-model`,
// visibility/app-tool-hidden fails, judged from MODEL_TOOLS.
func TestEnvProfileCatchesTheToolListDefect(t *testing.T) {
	mcpconformOnPath(t)
	h := refWithDefect(t, "app-only-tools-to-model")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Logf: t.Logf, Selection: runner.Selection{Globs: []string{"visibility/app-tool-hidden"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hr.Cases) != 1 {
		t.Fatalf("cases: %+v", hr.Cases)
	}
	c := hr.Cases[0]
	if c.Status != protocol.StatusFail || !strings.Contains(c.Message, "conformance_probe") {
		t.Errorf("%s: %s %q, want FAIL naming the leaked tool", c.ID, c.Status, c.Message)
	}
}

// USER_MESSAGES tells the user's messages apart through the profile
// alone: with `serve --host-defect message-role-changed` (the View's
// message shown as the assistant's), messages/role-preserved fails after
// messages/add-to-conversation passed (it PASSes without the defect:
// TestReferenceThroughEnvProfile runs it).
func TestEnvProfileCatchesTheRoleDefect(t *testing.T) {
	mcpconformOnPath(t)
	h := refWithDefect(t, "message-role-changed")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Selection: runner.Selection{Globs: []string{"messages/add-to-conversation", "messages/role-preserved"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]protocol.Status{}
	for _, c := range hr.Cases {
		got[c.ID] = c.Status
		if c.ID == "messages/role-preserved" && !strings.Contains(c.Message, "something else than a message of the user") {
			t.Errorf("%s: %q, want the message shown outside the user's messages", c.ID, c.Message)
		}
	}
	if got["messages/add-to-conversation"] != protocol.StatusPass || got["messages/role-preserved"] != protocol.StatusFail {
		t.Errorf("statuses %v, want add-to-conversation PASS and role-preserved FAIL", got)
	}
}

// NEW_SESSION drives the reference page for real: a tab opened with
// ?session=new shows a new conversation's model tools, where the defect
// app-tools-persisted restores every View's registration. Through the
// profile alone, tools/app-tools-not-persisted then FAILs naming the probe
// View's tool (it PASSes without the defect: TestReferenceThroughEnvProfile
// runs it in its sample).
func TestEnvProfileNewSessionSeesPersistedAppTools(t *testing.T) {
	mcpconformOnPath(t)
	h := refWithDefect(t, "app-tools-persisted")
	if !hosts.Supports(h, protocol.KindReadNewSessionToolList) {
		t.Fatal("the documented profile has no readNewSessionToolList")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Selection: runner.Selection{Globs: []string{"tools/app-tools-not-persisted"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hr.Cases) != 1 {
		t.Fatalf("%d cases", len(hr.Cases))
	}
	c := hr.Cases[0]
	if c.Status != protocol.StatusFail || !strings.Contains(c.Message, "mcpconform_probe_tool_") {
		t.Errorf("%s: %s %q, want FAIL naming the closed probe View's tool as listed in a new session", c.ID, c.Status, c.Message)
	}
}
