//go:build unix

package generic

import (
	"context"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/mcpuse"
	"github.com/mcpconform/mcpconform/protocol"
)

// Issue #23 item 4: a host whose tool form has one field per argument is
// described by a profile ({arguments} set field by field with fill-form):
// the documented profile of the mcp-use Inspector drives a real one, and
// every check ends as it does through the Go driver (--host mcp-use) on
// the same release: same capabilities, same statuses.
func TestMCPUseThroughProfile(t *testing.T) {
	e := env(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	url, stop, err := mcpuse.StartInstance(ctx, e, mcpuse.Options{})
	if err != nil {
		t.Fatalf("starting the mcp-use Inspector %s: %v", mcpuse.Version, err)
	}
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stopping the mcp-use Inspector: %v", err)
		}
	}()
	vars := docBlock(t, "mcpuse", "MCPCONFORM_MCPUSE_")
	vars["MCPCONFORM_MCPUSE_URL"] = url
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
	viaProfile, _ := compareRuns(t, ctx, h, builtin)
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
