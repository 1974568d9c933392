//go:build unix

package generic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/mcpuse"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// Issue #23 item 4: a host whose tool form has one field per argument is
// described by a profile ({arguments} set field by field with fill-form):
// the documented profile of the mcp-use Inspector drives a real one, and
// every check ends as it does through the Go driver (--host mcp-use) on
// the same release: same capabilities, and the statuses of the driver's
// review (which hosts/mcpuse's e2e holds the driver to).
func TestMCPUseThroughProfile(t *testing.T) {
	// Extended: CI's 30 minutes (an mcp-use Inspector of its own and its
	// probe Views took 1.5 minutes for a sample); in CI the fill-form
	// profile is proven on the development host
	// (TestDevelopmentHostThroughTheDocumentedProfile) and the driver on
	// the real Inspector by hosts/mcpuse.
	e2etest.Extended(t)
	e := env(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	vars := mcpuseProfile(t, ctx, e)
	l := envconfig.MapLookuper(vars)
	if r := Check("mcpuse", l); !r.OK() || len(r.Warnings) > 0 {
		t.Fatalf("hosts --check mcpuse: %v %v", r.Err, r.Warnings)
	}
	h, err := Lookup("mcpuse", l)
	if err != nil {
		t.Fatal(err)
	}
	// The Go driver on an Inspector of its own, so that neither run sees
	// what the other left behind.
	builtin := mcpuse.New()
	for _, k := range protocol.Kinds {
		if hosts.Supports(h, k) != hosts.Supports(builtin, k) {
			t.Errorf("%s: the profile host supports it %v, the Go driver %v", k, hosts.Supports(h, k), hosts.Supports(builtin, k))
		}
	}
	viaProfile, _ := compareWithReview(t, ctx, h, builtin, hostreview.MCPUse, runner.Selection{})
	if viaProfile.HostName != "mcp-use-inspector" || viaProfile.Host != "mcpuse" {
		t.Errorf("the profile run is host %q (%q)", viaProfile.Host, viaProfile.HostName)
	}
	// Not a vacuous agreement: the probe checks ran through OPEN_TOOL.
	probes := 0
	for _, c := range viaProfile.Cases {
		if isProbeCheck(c.Needs) && c.Status == protocol.StatusPass {
			probes++
		}
	}
	if probes == 0 {
		t.Error("no probe check passed through the profile")
	}
}

// Issue #23 item 2: a user who does not know the mcp-use Inspector asks
// before downloading writes its profile without CONFIRM. The Inspector
// shows its "Download 1 file?" toast, nobody answers it, and the download
// checks must say so (SKIP naming the toast and CONFIRM), not FAIL.
func TestMCPUseProfileWithoutConfirmSkipsNamingTheToast(t *testing.T) {
	// Extended: CI's 30 minutes; in CI the self-test proves the same SKIP
	// on the reference host's toast (variation download-toast-unconfirmed,
	// selftest.promptSkips).
	e2etest.Extended(t)
	e := env(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	vars := mcpuseProfile(t, ctx, e)
	delete(vars, "MCPCONFORM_MCPUSE_CONFIRM")
	delete(vars, "MCPCONFORM_MCPUSE_DIALOGS")
	h, err := Lookup("mcpuse", envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	hr, err := runner.Run(ctx, h, runner.Options{Env: e, Stall: 2 * time.Minute, Logf: t.Logf, Selection: runner.Selection{Globs: []string{"downloads/*"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hr.Cases) != 2 {
		t.Fatalf("ran %d checks, want the 2 downloads/ checks", len(hr.Cases))
	}
	for _, c := range hr.Cases {
		t.Logf("%s: %s %s", c.ID, c.Status, c.Message)
		if c.Status != protocol.StatusSkip {
			t.Errorf("%s: %s, want SKIP (the host waits on its user)", c.ID, c.Status)
			continue
		}
		for _, w := range []string{"waiting on the user", "Download", "MCPCONFORM_MCPUSE_CONFIRM", "screenshot: "} {
			if !strings.Contains(c.Message, w) {
				t.Errorf("%s: the SKIP does not say %q: %s", c.ID, w, c.Message)
			}
		}
	}
}

// mcpuseProfile starts an mcp-use Inspector for the test (stopped when it
// ends) and returns the documented profile's variables pointing at it.
func mcpuseProfile(t *testing.T, ctx context.Context, e hosts.Env) map[string]string {
	t.Helper()
	url, stop, err := mcpuse.StartInstance(ctx, e, mcpuse.Options{})
	if err != nil {
		t.Fatalf("starting the mcp-use Inspector %s: %v", mcpuse.Version, err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stopping the mcp-use Inspector: %v", err)
		}
	})
	vars := docBlock(t, "mcpuse", "MCPCONFORM_MCPUSE_")
	vars["MCPCONFORM_MCPUSE_URL"] = url
	return vars
}
