package appbridge

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/hostreview"
)

// One browser and one pair of fixture servers for the whole package
// (e2etest); the driver under test installs and bundles the SDK itself.
func TestMain(m *testing.M) { e2etest.Main(m) }

// What the review of every non-PASS on AppBridge 2.0.4 found (see
// README.md). A check not named here must PASS.
var (
	review = hostreview.Review{Host: "appbridge", Reasons: []string{"host bug"}, Fail: wantFail, Optional: wantOptional, Skip: wantSkip}
	// Host bugs: each must also be an entry of expectations/appbridge.yaml.
	wantFail = map[string]string{
		"visibility/model-only-tool-rejected":  "received 1 call(s) of the model-only tool model_only_probe",
		"lifecycle/nothing-before-initialized": "observed ui/notifications/host-context-changed",
		"negotiation/ui-extension-advertised":  "observed undefined",
	}
	// MAYs the host does not take up.
	wantOptional = map[string]string{
		"errors/invalid-link-refused": "did not refuse ui/open-link of a javascript: URL",
	}
	// Honest skips: the host lacks what the check needs.
	wantSkip = map[string]string{
		// App-provided tools (draft): the host never lists the View's tools
		// (no tools/list or ui/list-view-tools within the paced wait), which
		// the draft leaves to it; nor can the model's tool list be read.
		"tools/app-tools-listed":           "does not support app-provided tools",
		"tools/list-changed-throttled":     "no re-listing to throttle",
		"tools/app-tools-gone-after-close": "unsupported: readModelToolList",
		"tools/app-tools-limited":          "unsupported: readModelToolList",
		"tools/app-tools-not-persisted":    "unsupported: readNewSessionToolList",
		// Nor is there an app tool for its agent to call (tools/host-calls-app-tool).
		"tools/host-calls-app-tool": "does not support app-provided tools",
		// No agent to ask to call a closed app's tool.
		"tools/closed-app-tool-errors": "the host does not advertise hostCapabilities.message",
		"lifecycle/tool-cancelled":     "unsupported: cancelTool",
		// basic-host states a fixed width: the View's width is the host's.
		"sizing/size-changed-width-applied": "the host controls the width",
		// The host ignores ui/notifications/request-teardown (it MAY), so
		// the MUST for an accepted request has nothing to judge.
		"lifecycle/request-teardown":         "ignored ui/notifications/request-teardown, which it MAY",
		"lifecycle/request-teardown-awaited": "the request was ignored, which the host MAY",
		"visibility/app-tool-hidden":         "unsupported: readModelToolList",
		"visibility/cross-server-blocked":    "not connected to the second fixture server",
		"capabilities/logging-accepted":      "hostCapabilities.logging",
		"messages/add-to-conversation":       "hostCapabilities.message",
		"messages/role-preserved":            "hostCapabilities.message",
		"model-context/next-turn":            "hostCapabilities.message",
		"model-context/last-wins":            "hostCapabilities.message",
		"sampling/create-message":            "hostCapabilities.sampling",
		"downloads/download-file":            "hostCapabilities.downloadFile",
		"downloads/filename-sanitised":       "hostCapabilities.downloadFile",
		// basic-host offers no pip itself, so its refusal of pip cannot
		// show that it honours the app's declared modes.
		"display/undeclared-mode-refused": "the host offers no pip mode itself",
		// No hostCapabilities.sandbox: no approved domains to compare.
		"security/no-loosening": "the host states no approved domains",
	}
	// Judged only through the driver's openTool, closeView and toggleTheme.
	judgedThroughDriver = []string{
		"negotiation/ui-resource-read", "lifecycle/result-after-delay",
		"lifecycle/teardown-sent", "lifecycle/teardown-awaited", "lifecycle/request-teardown",
		"context/theme-change-notifies", "csp/default-restrictive", "csp/default-object-src", "csp/declared-frame-allowed", "csp/policy-declared-only",
	}
)

// The sandbox proxy's CSP is basic-host's: built from ?csp= (sanitised),
// restrictive where nothing is declared, the default for an unreadable
// query, never cached.
func TestSandboxCSP(t *testing.T) {
	get := func(q string) (string, string) {
		t.Helper()
		w := httptest.NewRecorder()
		serveSandbox(w, httptest.NewRequest("GET", "/sandbox?csp="+url.QueryEscape(q), nil))
		if !strings.Contains(w.Body.String(), "ui/notifications/sandbox-proxy-ready") {
			t.Fatalf("not the sandbox proxy: %q", w.Body.String())
		}
		return w.Header().Get("Content-Security-Policy"), w.Header().Get("Cache-Control")
	}
	def, cache := get("")
	for _, want := range []string{"default-src 'self' 'unsafe-inline'", "connect-src 'self';", "frame-src 'none'", "object-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(def, want) {
			t.Errorf("default CSP %q lacks %q", def, want)
		}
	}
	if !strings.Contains(cache, "no-store") {
		t.Errorf("Cache-Control %q", cache)
	}
	if bad, _ := get("{not json"); bad != def {
		t.Errorf("unreadable query: %q, want the default %q", bad, def)
	}
	got, _ := get(`{"connectDomains":["http://a.test","http://x.test 'unsafe-eval'"],"resourceDomains":["http://cdn.test"],"frameDomains":["http://f.test"],"baseUriDomains":["http://b.test"],"wasmUnsafeEval":true}`)
	for _, want := range []string{"connect-src 'self' http://a.test;", "img-src 'self' data: blob: http://cdn.test", "'wasm-unsafe-eval'", "frame-src http://f.test", "base-uri http://b.test", "object-src 'none'"} {
		if !strings.Contains(got, want) {
			t.Errorf("CSP %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "x.test") || strings.Count(got, "'unsafe-eval'") != 1 {
		t.Errorf("an entry with a space or quote was not dropped: %q", got)
	}
}

// page/host.ts type-checks (tsc --strict) against the pinned packages it is
// bundled with; it is not in the repository's tsc run, whose tsconfig
// cannot see the npm cache. Needs the TypeScript .ci/run installs into
// .cache/tsc.
func TestPageTypeChecks(t *testing.T) {
	tsc, err := filepath.Abs(filepath.Join("..", "..", ".cache", "tsc", "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Skipf("no TypeScript at %s (.ci/run installs it)", tsc)
	}
	prefix := npmcache.ForTestWith(t, Spec, Page.Options("", "", nil))
	dir := t.TempDir()
	if err := os.Symlink(npmcache.Modules(prefix), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cfg := `{"compilerOptions":{"target":"ES2020","module":"ESNext","moduleResolution":"Bundler","lib":["ES2022","DOM","DOM.Iterable"],"strict":true,"noEmit":true,"skipLibCheck":true,"types":[]},"files":["host.ts"]}`
	for name, body := range map[string]string{"tsconfig.json": cfg, "host.ts": pageFile("host.ts")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsc, "-p", "tsconfig.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
