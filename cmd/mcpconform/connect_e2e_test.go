package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/e2etest"
	"github.com/mcpconform/mcpconform/internal/operator"
	"github.com/mcpconform/mcpconform/protocol"
)

// The whole operator loop, the built binary on a pseudo-terminal:
// `run --host connect --operator --public-url …` prints the URL; a person
// opens a host connected to it (the reference host's page, in a browser
// the run never sees) and asks for the suite; the prompts appear on the
// terminal; answering them resolves the capabilities (the trigger clicked,
// the conversation confirmed: the check passes); an unanswered prompt
// fails its check with the reason; Ctrl-C at a later prompt stops the run
// with exit 130, and the JUnit report holds all of it.
func TestConnectOperatorWholeLoopOnAPseudoTerminal(t *testing.T) {
	e2etest.Require(t)
	b, _ := e2etest.Parts(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	publicURL := "http://" + addr + "/mcp"
	junitPath, marker := filepath.Join(t.TempDir(), "junit.xml"), newMarker()
	cmd := exec.Command(binary(t), "run", "--host", "connect", "--operator", "--operator-timeout", "3s",
		"--public-url", publicURL, "--listen", addr, "--junit", junitPath, "--evidence-dir", "",
		"--run", "context/theme-change-notifies", "--run", "messages/add-to-conversation", "--run", "links/open-link")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPCONFORM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, marker)
	ptm, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	defer cmd.Process.Kill()
	screen := &ptyScreen{}
	go bufferCopy(screen, ptm)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(screen.String(), "Waiting up to") {
		if time.Now().After(deadline) {
			t.Fatalf("no instructions:\n%s", screen.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(screen.String(), publicURL) {
		t.Fatalf("the instructions do not give %s:\n%s", publicURL, screen.String())
	}

	// The person: a host connected to the URL printed.
	srv, err := reference.NewServer(context.Background(), reference.ServerOptions{MCPServers: []string{publicURL, publicURL + "/second"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	bctx, err := b.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 900}})
	if err != nil {
		t.Fatal(err)
	}
	defer bctx.Close()
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Goto(srv.HostURL + "/"); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(`[data-testid="composer"]`).Fill(reference.Prompt); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(`[data-testid="send"]`).Click(); err != nil {
		t.Fatal(err)
	}

	seen, clicked, confirmed, unanswered, interrupted := 0, 0, 0, 0, false
	var code int
	for done := false; !done; {
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			done = true
			continue
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline.Add(3 * time.Minute)) {
			t.Fatalf("the run never ended:\n%s", screen.String())
		}
		prompts := strings.Split(screen.String(), "[operator ")
		if len(prompts)-1 <= seen || !strings.Contains(prompts[len(prompts)-1], "> ") {
			continue
		}
		seen = len(prompts) - 1
		last := prompts[len(prompts)-1]
		switch {
		case confirmed > 0:
			// The check after the answered ones: Ctrl-C at its prompt.
			ptm.Write([]byte{3})
			interrupted = true
		case strings.Contains(last, "· toggleTheme]"):
			unanswered++ // let it time out
		case strings.Contains(last, "· clickTrigger]"):
			err := page.FrameLocator(`iframe[data-testid="app-frame"]`).FrameLocator("iframe").
				GetByText(operator.TriggerLabel).Click(playwright.LocatorClickOptions{Timeout: playwright.Float(10000)})
			if err != nil {
				t.Errorf("clicking the trigger: %v", err)
			}
			clicked++
			ptm.WriteString("\r")
		case strings.Contains(last, "· conversationContains]"):
			i, j := strings.Index(last, `show "`), strings.Index(last, `"?`)
			m := last[i+len(`show "`) : j]
			if err := page.Locator(`[data-testid="conversation"]`).Filter(playwright.LocatorFilterOptions{HasText: m}).
				WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(10000)}); err != nil {
				t.Errorf("the marker %q never appeared in the conversation: %v", m, err)
			}
			confirmed++
			ptm.WriteString("y\r")
		default:
			ptm.WriteString("n\r")
		}
	}
	if !interrupted || code != ExitSIGINT {
		t.Fatalf("exit %d (Ctrl-C sent: %v), want %d; clicked %d, confirmed %d, unanswered %d:\n%s", code, interrupted, ExitSIGINT, clicked, confirmed, unanswered, screen.String())
	}
	if clicked == 0 || unanswered == 0 {
		t.Errorf("clicked %d, unanswered %d: the selection did not ask what it should", clicked, unanswered)
	}
	for _, s := range []string{`click the button labelled "Conformance trigger"`, "no answer within 3s: recorded as failed", "stopped:"} {
		if !strings.Contains(screen.String(), s) {
			t.Errorf("the terminal never showed %q", s)
		}
	}
	s := checkJUnit(t, junitPath, "")
	status := map[string]string{}
	for _, tc := range s.Suites[0].Testcases {
		id := tc.Classname + "/" + tc.Name
		switch {
		case tc.Error != nil:
			status[id] = "ERROR: " + tc.Error.Message
		case tc.Failure != nil:
			status[id] = "FAIL: " + tc.Failure.Message + " " + tc.Failure.Data
		case tc.Skipped != nil:
			status[id] = "SKIP: " + tc.Skipped.Message
		default:
			status[id] = "PASS"
		}
	}
	t.Logf("clicked %d, confirmed %d, unanswered %d; JUnit: %v", clicked, confirmed, unanswered, status)
	find := func(id string) string {
		for k, v := range status {
			if strings.Contains(k, id) {
				return v
			}
		}
		return "(absent)"
	}
	if v := find("messages/add-to-conversation"); v != "PASS" {
		t.Errorf("messages/add-to-conversation: %s", v)
	}
	if v := find("context/theme-change-notifies"); !strings.Contains(v, "did not answer within 3s") {
		t.Errorf("context/theme-change-notifies: %s", v)
	}
	if v := find("links/open-link"); !strings.Contains(v, "not run") && !strings.Contains(v, string(protocol.StatusNotRun)) {
		t.Errorf("links/open-link after Ctrl-C: %s", v)
	}
	waitNoLeftovers(t, marker)
}
