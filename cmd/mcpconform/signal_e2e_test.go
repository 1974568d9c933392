package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// leftovers lists live processes whose environment carries marker: every
// process a run starts (driver, browser, hosts) inherits it.
func leftovers(marker string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if strings.Contains(string(stat), ") Z ") {
			continue // a zombie holds no resources; its parent reaps it
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

func waitNoLeftovers(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := leftovers(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind after the run:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func newMarker() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "MCPCONFORM_TEST_MARKER=" + hex.EncodeToString(b)
}

// startedRun starts `mcpconform run` as a process of its own, tagged with
// marker, and returns once the first check has passed (the suite is
// running). rest drains the remaining output in the background.
func startedRun(t *testing.T, junitPath, marker string) (cmd *exec.Cmd, stderr *bytes.Buffer, rest func()) {
	t.Helper()
	cmd = exec.Command(binary(t), "run", "--junit", junitPath, "--evidence-dir", "")
	cmd.Env = append(os.Environ(), marker)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	// A process the run leaves behind (what these tests look for) may hold
	// stderr open: Wait stops waiting for it 10 s after the run exits.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	started := make(chan bool, 1)
	go func() {
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "PASS") {
				started <- true
				return
			}
		}
		started <- false
	}()
	select {
	case ok := <-started:
		if !ok {
			cmd.Wait()
			t.Fatalf("the run ended before any check passed:\n%s", stderr.String())
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("no check passed within 3 minutes of the run's start")
	}
	return cmd, stderr, func() {
		go func() {
			for sc.Scan() {
			}
		}()
	}
}

// waitExit is cmd.Wait, at most d: a run that does not stop is killed
// and the test fails.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		t.Fatalf("the run had not exited %s later; killed", d)
		return nil
	}
}

// A signal mid-run: the run stops within seconds, writes every report with
// what finished (the rest NOTRUN), closes everything it started and exits
// 130 (SIGINT) or 143 (SIGTERM).
func TestSignalStopsTheRunCleanly(t *testing.T) {
	e2etest.Require(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, ExitSIGINT}, {syscall.SIGTERM, ExitSIGTERM}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			junitPath, marker := filepath.Join(t.TempDir(), "junit.xml"), newMarker()
			cmd, stderr, rest := startedRun(t, junitPath, marker)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			rest()
			err := waitExit(t, cmd, 2*time.Minute)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("exit %v, want %d\n%s", err, c.code, stderr.String())
			}
			if d := time.Since(sent); d > 15*time.Second {
				t.Errorf("took %s to stop after the signal", d)
			}
			b, err := os.ReadFile(junitPath)
			if err != nil {
				t.Fatalf("no JUnit report after the signal: %v", err)
			}
			var s junit.Testsuites
			if err := xml.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if len(s.Suites) != 1 || s.Suites[0].Tests < 40 || !strings.Contains(string(b), "not run: interrupted") {
				t.Errorf("the report does not list every check with the unfinished ones NOTRUN:\n%.2000s", b)
			}
			waitNoLeftovers(t, marker)
		})
	}
}

// The browser dies mid-run: the remaining checks are NOTRUN, the reports
// are written, the exit code is 3, and nothing is left running.
func TestBrowserCrashIsInfraAndLeavesNothingBehind(t *testing.T) {
	e2etest.Require(t)
	junitPath, marker := filepath.Join(t.TempDir(), "junit.xml"), newMarker()
	cmd, stderr, rest := startedRun(t, junitPath, marker)
	killed := 0
	for _, p := range leftovers(marker) {
		f := strings.Fields(p)
		// The browser process (not a renderer or helper): Chromium, or the
		// headless shell a headless run prefers (internal/browser).
		if len(f) > 1 && (strings.HasSuffix(f[1], "chromium") || strings.HasSuffix(f[1], "headless-shell")) && !strings.Contains(p, "--type=") {
			var pid int
			fmt.Sscan(f[0], &pid)
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	if killed == 0 {
		t.Fatalf("found no browser process to kill among:\n%s", strings.Join(leftovers(marker), "\n"))
	}
	rest()
	err := waitExit(t, cmd, 2*time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitInfra {
		t.Fatalf("exit %v, want %d\n%s", err, ExitInfra, stderr.String())
	}
	b, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatalf("no JUnit report after the crash: %v", err)
	}
	if !strings.Contains(string(b), "not run: ") {
		t.Errorf("no NOTRUN checks in the report:\n%.1500s", b)
	}
	waitNoLeftovers(t, marker)
}
