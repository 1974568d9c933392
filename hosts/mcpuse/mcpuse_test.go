package mcpuse

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/nodeproc"
	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
)

// One browser and one pair of fixture servers for the whole package
// (e2etest); the driver under test installs and starts the Inspector.
func TestMain(m *testing.M) { e2etest.Main(m) }

// Judged only through the driver's openTool, closeView, cancelTool and
// confirmDialog, and its connection to the second server.
var judgedThroughDriver = []string{
	"negotiation/ui-resource-read", "lifecycle/result-after-delay", "lifecycle/tool-cancelled",
	"lifecycle/teardown-sent", "lifecycle/request-teardown", "downloads/download-file",
	"context/theme-change-notifies", "visibility/cross-server-blocked",
}

// What the review of every non-PASS found (README.md); it lives in
// internal/testkit/hostreview, where the env-profile e2e (hosts/generic)
// compares its runs with it too. A check not named there must PASS.
var review = hostreview.MCPUse

// installed returns the npm prefix holding the Inspector, installing it on
// first use; no npm or no registry skips (fails with CI=true or
// MCPCONFORM_REQUIRE_BROWSER=1).
func installed(t *testing.T) string {
	t.Helper()
	return npmcache.ForTest(t, Spec)
}

// checkStopped fails unless the Inspector's process group, port and HOME
// are all gone.
func checkStopped(t *testing.T, inst *instance) {
	t.Helper()
	if nodeproc.GroupAlive(inst.proc.PID()) {
		t.Errorf("process group %d of the Inspector is still alive after Stop", inst.proc.PID())
	}
	u := strings.TrimPrefix(inst.URL, "http://")
	if c, err := net.DialTimeout("tcp", u, time.Second); err == nil {
		c.Close()
		t.Errorf("the Inspector's %s still accepts connections after Stop", u)
	}
	if _, err := os.Stat(inst.proc.Home()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the throwaway HOME %s was not removed", inst.proc.Home())
	}
}

// The started Inspector serves its UI on 127.0.0.1 only (its CLI alone
// listens on every interface; the preload binds it to loopback), with the
// telemetry opt-out in its page, and Stop ends all of it.
func TestStartLoopbackOnly(t *testing.T) {
	prefix := installed(t)
	if _, err := exec.LookPath("node"); err != nil {
		if npmcache.Required() {
			t.Fatalf("no node on PATH (CI=true or %s=1: a missing install fails)", npmcache.EnvRequire)
		}
		t.Skipf("no node on PATH to start the mcp-use Inspector with: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst, err := start(ctx, "node", prefix, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.proc.Stop(3 * time.Second)
	port := strings.TrimPrefix(inst.URL, "http://127.0.0.1:")
	checkLoopbackOnly(t, port)
	resp, err := nodeproc.NoProxy.Get(inst.URL + "/inspector")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "window.__MCP_USE_ANONYMIZED_TELEMETRY__ = false") {
		t.Errorf("the page has no telemetry opt-out: MCP_USE_ANONYMIZED_TELEMETRY=false did not reach it")
	}
	if err := inst.proc.Stop(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	checkStopped(t, inst)
}

// checkLoopbackOnly fails the test when the Inspector's port answers on a
// non-loopback address of this machine (the CLI alone listens on all).
func checkLoopbackOnly(t *testing.T, port string) {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Errorf("interface addresses: %v", err)
		return
	}
	tried := 0
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		tried++
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), port), time.Second); err == nil {
			c.Close()
			t.Errorf("the Inspector answers on %s:%s, not on loopback only", ipn.IP, port)
		}
	}
	t.Logf("loopback only: %d non-loopback address(es) tried", tried)
}
