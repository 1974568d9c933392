package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

func TestMain(m *testing.M) {
	e2etest.Main(m, func() {
		if bin != "" {
			os.RemoveAll(filepath.Dir(bin))
		}
	})
}

// binary builds the mcpconform binary once, for the tests that need a
// process of its own (signals, a crash, a soak's process figures, bench
// --repeat re-executing itself).
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpconform-cli-")
		if err != nil {
			binErr = err
			return
		}
		bin = filepath.Join(dir, "mcpconform")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

var (
	binOnce sync.Once
	bin     string
	binErr  error
)

// mcpconform runs the CLI in this process with a clean MCPCONFORM_*
// environment plus env.
func mcpconform(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	clearEnv(t)
	// Evidence goes to a temporary directory, not into the source tree
	// (a test's --evidence-dir or env still wins).
	t.Setenv("MCPCONFORM_EVIDENCE_DIR", filepath.Join(t.TempDir(), "evidence"))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// mcpconformExec runs the built binary with a clean MCPCONFORM_*
// environment plus env.
func mcpconformExec(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	// A hang guard, not a speed limit: the longest of these (a bench, a
	// soak) take under a minute alone. WaitDelay: a process the binary
	// leaves behind may hold its output open after it exits.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(cleanEnviron("MCPCONFORM_EVIDENCE_DIR="+filepath.Join(t.TempDir(), "evidence")), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mcpconform %v had not exited after 10 minutes; killed. Its stderr:\n%s", args, e.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestUsageErrorsExit2WithAClearMessage(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown host", nil, []string{"run", "--host", "nope"}, `unknown host "nope": choose one of `},
		{"unknown host from env", []string{"MCPCONFORM_HOST=nope"}, []string{"run"}, `unknown host "nope"`},
		{"bad glob", nil, []string{"run", "--run", "[x"}, `--run "[x" is not a valid glob`},
		{"bad duration flag", nil, []string{"run", "--timeout", "soon"}, `invalid value "soon" for flag -timeout`},
		{"bad duration env", []string{"MCPCONFORM_TIMEOUT=soon"}, []string{"run"}, `environment:`},
		{"negative duration", nil, []string{"run", "--stall", "-1s"}, `--stall must be a positive duration`},
		{"unknown flag", nil, []string{"run", "--frobnicate"}, `flag provided but not defined: -frobnicate`},
		{"stray argument", nil, []string{"run", "extra"}, `run takes no arguments`},
		{"unknown command", nil, []string{"frob"}, `unknown command "frob"`},
		{"unknown check id", nil, []string{"run", "--run", "lifecycle/no-such-check"}, `--run "lifecycle/no-such-check" matches no check`},
		{"glob matching nothing", nil, []string{"run", "--run", "no-such-area/*"}, `matches no check`},
		{"bad shard", nil, []string{"run", "--shard", "3/2"}, `--shard "3/2": want I/N`},
		{"bad clause", nil, []string{"run", "--clause", "MIGHT"}, `--clause "MIGHT": use MUST, SHOULD, MAY or INFO`},
		{"bad edition", nil, []string{"run", "--edition", "2025"}, `--edition "2025"`},
		{"bad judge edition", nil, []string{"run", "--judge-edition", "stable"}, `--judge-edition "stable": use 2026-01-26 or draft`},
		{"host and hosts", nil, []string{"run", "--host", "reference", "--hosts", "reference"}, `--host and --hosts conflict`},
		{"host twice", nil, []string{"run", "--hosts", "reference,reference"}, `host "reference" is listed twice`},
		{"retries out of range", nil, []string{"run", "--retries", "-1"}, `--retries must be between 0 and 10`},
		{"unknown bridge", nil, []string{"run", "--bridge", "pigeon"}, `--bridge must be evaluate or relay, not "pigeon"`},
		{"unknown bridge from env", []string{"MCPCONFORM_BRIDGE=pigeon"}, []string{"run"}, `--bridge must be evaluate or relay`},
		{"relay with two hosts", nil, []string{"run", "--hosts", "reference,inspector", "--bridge", "relay"}, `--bridge relay runs one host at a time`},
		{"unknown defect", nil, []string{"run", "--host-defect", "nope"}, `unknown host defect "nope"`},
		{"unknown defect from env", []string{"MCPCONFORM_HOST_DEFECTS=no-visibility-guard,nope"}, []string{"run"}, `unknown host defect "nope"`},
		{"defect on another host", nil, []string{"run", "--host", "inspector", "--host-defect", "ping-unanswered"}, `--host-defect applies to the reference host only`},
		{"unknown variation", nil, []string{"run", "--host-variation", "nope"}, `unknown host variation "nope"`},
		{"unknown variation from env", []string{"MCPCONFORM_HOST_VARIATIONS=no-agent,nope"}, []string{"run"}, `unknown host variation "nope"`},
		{"variation on another host", nil, []string{"run", "--host", "inspector", "--host-variation", "no-agent"}, `--host-variation applies to the reference host only`},
		{"unknown serve variation", nil, []string{"serve", "--host-variation", "nope"}, `unknown host variation "nope"`},
		{"bad serve server", nil, []string{"serve", "--server", "ftp://x"}, `--server "ftp://x" is not an http(s) URL`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := mcpconform(t, c.env, c.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, stderr)
			}
		})
	}
}

func TestNoBrowserIsInfraAndStillWritesReports(t *testing.T) {
	dir := t.TempDir()
	junitPath := filepath.Join(dir, "junit.xml")
	_, stderr, code := mcpconform(t, nil, "run", "--browser", "/nonexistent/chromium", "--junit", junitPath)
	if code != ExitInfra {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitInfra, stderr)
	}
	if !strings.Contains(stderr, "no Chromium found") || !strings.Contains(stderr, "apt-get install chromium") {
		t.Errorf("stderr does not say how to fix it:\n%s", stderr)
	}
	b, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatalf("no JUnit report after an infrastructure failure: %v", err)
	}
	if !strings.Contains(string(b), "no Chromium found") {
		t.Errorf("the JUnit report does not carry the infrastructure error:\n%s", b)
	}
}

// --host-variation (repeated) reaches the reference host, combined with a
// defect: the run's recorded hostCapabilities lack openLinks, its
// hostContext holds only theme, and the defect still fails its check.
func TestHostVariationReachesTheHost(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	stdout, stderr, code := mcpconform(t, nil, "run", "--host-variation", "no-capability-open-links", "--host-variation", "context-minimal", "--host-defect", "no-visibility-guard", "--run", "visibility/*", "--json", out, "--evidence-dir", "")
	if code != ExitFailures || !strings.Contains(stdout, "FAIL  visibility/model-only-tool-rejected") {
		t.Fatalf("exit %d, want %d with the defect's check red\nstdout:\n%s\nstderr:\n%s", code, ExitFailures, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Hosts []struct {
			Capabilities map[string]any `json:"capabilities"`
			Context      map[string]any `json:"context"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(b, &res); err != nil || len(res.Hosts) != 1 {
		t.Fatalf("results.json: %v %s", err, b)
	}
	h := res.Hosts[0]
	if _, has := h.Capabilities["openLinks"]; has || h.Capabilities["serverTools"] == nil {
		t.Errorf("capabilities %v: want serverTools without openLinks (flag)", h.Capabilities)
	}
	if len(h.Context) != 1 || h.Context["theme"] == nil {
		t.Errorf("context %v: want only theme", h.Context)
	}
}

func TestServeListsDefects(t *testing.T) {
	stdout, _, code := mcpconform(t, nil, "serve", "--list-defects")
	if code != 0 || !strings.Contains(stdout, "no-visibility-guard") || !strings.Contains(stdout, "S L401") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}

func TestServeListsVariations(t *testing.T) {
	stdout, _, code := mcpconform(t, nil, "serve", "--list-variations")
	if code != 0 || !strings.Contains(stdout, "no-agent") || !strings.Contains(stdout, "S L1120") {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}
