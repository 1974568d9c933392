//go:build unix

package inspector

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
	"github.com/mcpconform/mcpconform/runner"
)

// One browser and one pair of fixture servers for the whole package, as in
// production, started by the first test that needs them (e2etest). The
// Inspector itself is installed (first use) and started by the driver
// under test.
func TestMain(m *testing.M) { e2etest.Main(m) }

func env(t testing.TB) hosts.Env {
	t.Helper()
	return e2etest.Env(t, 60*time.Second)
}

// Checks judged only because openTool opens their probe View (without
// it they skip: the Inspector has no agent). lifecycle/request-teardown
// also opens one, and closes it (closeView), before it skips with the
// reason above.
var judgedThroughOpenTool = []string{
	"negotiation/ui-resource-read", "negotiation/legacy-resource-uri", "negotiation/ui-meta-listing-fallback",
	"negotiation/ui-meta-content-precedence", "lifecycle/result-after-delay", "csp/default-restrictive",
	"csp/default-object-src", "csp/declared-frame-allowed", "csp/policy-declared-only",
}

// What the review of every non-PASS found (README.md); it lives in
// internal/testkit/hostreview, where the env-profile e2e (hosts/generic)
// compares its runs with it too. A check not named there must PASS.
var review = hostreview.Inspector

// gateWithExpectations judges the run as `mcpconform run --expectations
// expectations/inspector.yaml` does: it must pass, and the same run must
// fail the gate when an entry is missing (a regression) or names a check
// that passes (stale).
func gateWithExpectations(t *testing.T, hr report.HostRun) {
	t.Helper()
	path := filepath.Join("..", "..", "expectations", "inspector.yaml")
	exp, err := expectations.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	hostreview.Gate(t, hr, exp, path)
	run := report.Run{Hosts: []report.HostRun{hr}}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Without the host bug's entry, its failure is a regression.
	cut := strings.Replace(string(data), "  - id: visibility/model-only-tool-rejected\n", "  - id: visibility/model-only-tool-rejected-gone\n", 1)
	if cut == string(data) {
		t.Fatal("expectations/inspector.yaml has no entry for visibility/model-only-tool-rejected")
	}
	e2, err := expectations.Parse(path, []byte(cut))
	if err != nil {
		t.Fatal(err)
	}
	if r := expectations.Evaluate(run, e2); r.Verdict(true) != expectations.Fail || len(r.Regressions()) != 1 {
		t.Errorf("a missing entry: verdict %s, regressions %v", r.Verdict(true), r.Regressions())
	}
	// An entry for a check that passes is stale.
	e3, err := expectations.Parse(path, append(data, []byte("  - id: lifecycle/ping\n    reason: \"host bug: stale on purpose\"\n")...))
	if err != nil {
		t.Fatal(err)
	}
	if r := expectations.Evaluate(run, e3); r.Verdict(false) != expectations.Fail || len(r.Stale()) != 1 || r.Verdict(true) != expectations.Pass {
		t.Errorf("a stale entry: verdict %s (allow-stale %s), stale %v", r.Verdict(false), r.Verdict(true), r.Stale())
	}
}

// sawProbeCall reports whether the main fixture server saw a probe tool
// called for probe id.
func sawProbeCall(id string) bool {
	for _, c := range e2etest.Started().Fixtures.MainServer.Observations().ToolCalls {
		if c.Tool == mcpserver.ToolSlow && strings.Contains(string(c.Arguments), id) {
			return true
		}
	}
	return false
}

// A missing or unreachable Inspector fails Setup at once, naming the
// variable to fix.
func TestAttachFailsFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name, url, token, want string
	}{
		{"closed port", closed, "tok", EnvURL},
		{"no token", closed, "", EnvToken},
		{"not a URL", "127.0.0.1:1", "tok", EnvURL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvURL, tc.url)
			t.Setenv(EnvToken, tc.token)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := New()
			start := time.Now()
			// Attaching fails before any page opens: no browser needed.
			hr, err := runner.Run(ctx, h, runner.Options{Env: hosts.Env{ServerURL: "http://127.0.0.1:9/mcp"}})
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("failing took %s", d)
			}
			var ie *runner.InfraError
			if !errors.As(err, &ie) || !errors.Is(err, runner.ErrHostSetup) {
				t.Fatalf("want a host-setup infrastructure error, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(hr.Infra, tc.want) {
				t.Fatalf("the error does not name %s: %v", tc.want, err)
			}
			if h.PID() != 0 {
				t.Fatalf("an Inspector was started (pid %d) although %s was set", h.PID(), EnvURL)
			}
		})
	}
}

// A failing npm install leaves no half-filled install prefix behind.
func TestInstallFailureLeavesNoPrefix(t *testing.T) {
	falseBin, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false(1)")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "inspector-"+Version)
	err = install(context.Background(), falseBin, prefix, t.Logf)
	if !errors.Is(err, ErrInstall) {
		t.Fatalf("want ErrInstall, got %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
	if installed(prefix) {
		t.Fatal("a failed install counts as installed")
	}
}

// assertStopped checks that the Inspector h started is gone: no process of
// its group, and nothing on its port.
func assertStopped(t *testing.T, h *Host) {
	t.Helper()
	pid := h.PID()
	if pid == 0 {
		t.Fatal("the driver started no Inspector")
	}
	if groupAlive(pid) {
		t.Errorf("processes of the Inspector's group %d survive Teardown", pid)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("the Inspector (pid %d) survives Teardown", pid)
	}
	u := strings.TrimPrefix(h.URL(), "http://")
	if c, err := net.DialTimeout("tcp", u, time.Second); err == nil {
		c.Close()
		t.Errorf("something still listens on the Inspector's port %s", u)
	}
	if _, err := os.Stat(h.inst.proc.Home()); !os.IsNotExist(err) {
		t.Errorf("the throwaway HOME %s was not removed", h.inst.proc.Home())
	}
}
