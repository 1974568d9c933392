package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// "-" is stdout for every report format: the report alone goes there and
// the console moves to stderr; two reports cannot share stdout.
func TestAnyReportCanGoToStdout(t *testing.T) {
	e2etest.Require(t)
	stdout, stderr, code := mcpconform(t, nil, "run", "--run", "lifecycle/initialize-result", "--json", "-", "--evidence-dir", "")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var back struct {
		Hosts []struct{ Host string } `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(stdout), &back); err != nil || len(back.Hosts) != 1 || back.Hosts[0].Host != "reference" {
		t.Errorf("stdout is not the JSON report alone: %v\n%s", err, stdout)
	}
	if !strings.Contains(stderr, "1 passed, 0 failed, 0 skipped") {
		t.Errorf("the console did not move to stderr:\n%s", stderr)
	}
	_, stderr, code = mcpconform(t, nil, "run", "--json", "-", "--tap", "-")
	if code != ExitUsage || !strings.Contains(stderr, "only one report can go to stdout") {
		t.Errorf("two reports on stdout: exit %d\n%s", code, stderr)
	}
}

// The host never shows the app in time: exit 3, the message names the step
// and a screenshot of the page, and the reports are still written.
func TestAppNeverShownIsInfraWithScreenshot(t *testing.T) {
	e2etest.Require(t)
	dir := t.TempDir()
	junitPath := filepath.Join(dir, "junit.xml")
	// A host page that never shows an app (the fixture server's own
	// endpoint), not the reference host with a 1 ms app timeout: its View
	// was sometimes there at the first look, and the run passed (CI54).
	env := []string{"MCPCONFORM_NOAPP_URL=http://127.0.0.1:9", "MCPCONFORM_NOAPP_STEPS=goto {server}"}
	_, stderr, code := mcpconform(t, env, "run", "--host", "noapp", "--app-timeout", "2s", "--evidence-dir", filepath.Join(dir, "ev"), "--junit", junitPath)
	if code != ExitInfra {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInfra, stderr)
	}
	if !strings.Contains(stderr, "setting up host noapp") || !strings.Contains(stderr, "never appeared") {
		t.Errorf("the message does not name the step:\n%s", stderr)
	}
	// What the fixture server saw says how far the host got: the page
	// loaded the server's URL and never spoke MCP. And the frame chain's
	// parenthesis is closed (Playwright's call log once cut it off).
	if !strings.Contains(stderr, "the fixture server saw no MCP connection from the host") {
		t.Errorf("the message does not say what the fixture server saw:\n%s", stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "frame chain") && strings.Count(line, "(") != strings.Count(line, ")") {
			t.Errorf("unbalanced parentheses: %s", line)
		}
	}
	m := regexp.MustCompile(`evidence: (\S+\.png)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no screenshot path in the message:\n%s", stderr)
	}
	if st, err := os.Stat(m[1]); err != nil || st.Size() == 0 {
		t.Errorf("screenshot %s: %v", m[1], err)
	}
	if _, err := os.Stat(junitPath); err != nil {
		t.Errorf("no JUnit report: %v", err)
	}
}

func TestFailOnShouldDecidesWhetherShouldFailuresGate(t *testing.T) {
	e2etest.Require(t)
	// message-dropped breaks a SHOULD (ui/message reaches the conversation).
	args := []string{"run", "--host-defect", "message-dropped", "--run", "messages/*", "--evidence-dir", ""}
	stdout, _, code := mcpconform(t, nil, args...)
	if code != ExitFailures || !strings.Contains(stdout, "FAIL  messages/add-to-conversation") {
		t.Fatalf("default: exit %d, want 1 with the SHOULD failure shown:\n%s", code, stdout)
	}
	stdout, _, code = mcpconform(t, []string{"MCPCONFORM_FAIL_ON_SHOULD=false"}, args...)
	if code != ExitOK || !strings.Contains(stdout, "FAIL  messages/add-to-conversation") {
		t.Fatalf("--fail-on-should=false: exit %d, want 0 with the SHOULD failure still reported:\n%s", code, stdout)
	}
	// A MUST failure still fails the run.
	_, _, code = mcpconform(t, []string{"MCPCONFORM_FAIL_ON_SHOULD=false"}, "run", "--host-defect", "no-visibility-guard", "--run", "visibility/model-only-tool-rejected", "--evidence-dir", "")
	if code != ExitFailures {
		t.Fatalf("a MUST failure with --fail-on-should=false: exit %d, want 1", code)
	}
}

// A defect makes exactly its check fail, and the run exits 1.
func TestHostDefectFailsItsCheck(t *testing.T) {
	e2etest.Require(t)
	stdout, stderr, code := mcpconform(t, nil, "run", "--host-defect", "no-visibility-guard", "--run", "visibility/*")
	if code != ExitFailures {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFailures, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL  visibility/model-only-tool-rejected") || !strings.Contains(stdout, "PASS  visibility/app-only-tool-callable") {
		t.Errorf("want only model-only-tool-rejected to fail:\n%s", stdout)
	}
	if !strings.Contains(stdout, "MUST reject tools/call requests from apps") {
		t.Errorf("the failure does not quote the spec:\n%s", stdout)
	}
}

func TestRunSelectingNothingExits4(t *testing.T) {
	e2etest.Require(t)
	// Each filter matches something, together nothing: exit 4.
	_, stderr, code := mcpconform(t, nil, "run", "--run", "visibility/*", "--edition", "draft", "--evidence-dir", "")
	if code != ExitNoTests {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitNoTests, stderr)
	}
	if !strings.Contains(stderr, "no test matched") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// The README's run command, end to end through the binary.
func TestRunWritesJUnitAndTAPAndExits0(t *testing.T) {
	e2etest.Require(t)
	dir := t.TempDir()
	junitPath, tapPath := filepath.Join(dir, "out", "junit.xml"), filepath.Join(dir, "out", "results.tap")
	stdout, stderr, code := mcpconform(t, nil, "run", "--junit", junitPath, "--tap", tapPath)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	last := strings.TrimSpace(stdout[strings.LastIndex(strings.TrimSpace(stdout), "\n")+1:])
	m := regexp.MustCompile(`^(\d+) passed, 0 failed, 0 skipped$`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("closing line %q is not `N passed, 0 failed, 0 skipped`", last)
	}
	if !strings.Contains(stdout, "PASS  lifecycle/initialize-result") {
		t.Errorf("no live line per test:\n%s", stdout)
	}

	var suites junit.Testsuites
	b, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	if len(suites.Suites) != 1 || fmt.Sprint(suites.Suites[0].Tests) != m[1] || suites.Suites[0].Failures != 0 {
		t.Errorf("JUnit counts %+v disagree with the console (%s passed)", suites.Suites, m[1])
	}

	tap, err := os.ReadFile(tapPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tap)), "\n")
	if lines[0] != "TAP version 14" || lines[1] != "1.."+m[1] {
		t.Errorf("TAP header %q %q, want version 14 and plan 1..%s", lines[0], lines[1], m[1])
	}
	oks := 0
	for _, l := range lines[2:] {
		if regexp.MustCompile(`^ok \d+ - [a-z0-9-]+/[a-z0-9-]+$`).MatchString(l) {
			oks++
		}
	}
	if fmt.Sprint(oks) != m[1] {
		t.Errorf("TAP has %d ok lines, want %s:\n%s", oks, m[1], tap)
	}
}

// shardedAreas are the checks TestShardsMergeToTheFullRun shards: areas
// whose checks are quick and need no probe View. Sharding applies to any
// selection alike (runner's selection tests hold the split itself); the
// whole catalogue twice took a minute and a half of CI.
var shardedAreas = []string{"context/*", "display/*", "errors/*", "sandbox/*", "security/*"}

// Shards of one run, merged, give every selected check exactly once.
func TestShardsMergeToTheFullRun(t *testing.T) {
	e2etest.Require(t)
	dir := t.TempDir()
	var files []string
	for i := 1; i <= 2; i++ {
		f := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		files = append(files, f)
		args := []string{"run", "--shard", fmt.Sprintf("%d/2", i), "--json", f, "--evidence-dir", ""}
		for _, g := range shardedAreas {
			args = append(args, "--run", g)
		}
		_, stderr, code := mcpconform(t, nil, args...)
		if code != ExitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, code, stderr)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	if _, stderr, code := mcpconform(t, nil, "report", "--merge", "--from", files[0], "--from", files[1], "--json", merged); code != 0 {
		t.Fatalf("report --merge: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := mcpconform(t, nil, "report", "--from", files[0], "--from", files[1], "--json", filepath.Join(dir, "x.json")); code != ExitUsage || !strings.Contains(stderr, "--merge") {
		t.Errorf("merging shards without --merge: exit %d, want 2 naming --merge\n%s", code, stderr)
	}
	var out struct {
		Hosts []struct {
			Host  string
			Cases []struct{ ID, Status string }
		}
	}
	b, _ := os.ReadFile(merged)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Hosts) != 1 {
		t.Fatalf("%d hosts after merging, want 1", len(out.Hosts))
	}
	stdout, _, _ := mcpconform(t, nil, "list", "--json")
	var cat struct{ Tests []struct{ ID string } }
	if err := json.Unmarshal([]byte(stdout), &cat); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range out.Hosts[0].Cases {
		seen[c.ID]++
		if c.Status != "PASS" {
			t.Errorf("%s: %s", c.ID, c.Status)
		}
	}
	inSelection := 0
	for _, tc := range cat.Tests {
		if !slices.ContainsFunc(shardedAreas, func(g string) bool { ok, _ := path.Match(g, tc.ID); return ok }) {
			continue
		}
		inSelection++
		if seen[tc.ID] != 1 {
			t.Errorf("%s appears %d times in the merged results", tc.ID, seen[tc.ID])
		}
	}
	if len(seen) != inSelection || inSelection < 15 {
		t.Errorf("merged %d checks, the selection has %d of the catalogue", len(seen), inSelection)
	}
}
