package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/testkit/connecttest"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
)

// The whole operator loop, the built binary on a pseudo-terminal:
// `run --host connect --operator --public-url …` prints the URL; a person
// opens a host connected to it (the reference host's page, in a browser
// the run never sees) and asks for the suite; the prompts appear on the
// terminal; answering them resolves the capabilities (the trigger clicked,
// the conversation confirmed: the check passes); a prompt answered n
// ends its check with the reason (a SKIP: no theme switched, nothing to
// judge); Ctrl-C at a later prompt stops the run
// with exit 130, and the JUnit report holds all of it.
//
// The prompts' time is long on purpose: the person here is a second
// browser, and its click can take seconds on a loaded machine; a prompt
// running out is internal/operator's TestATimeoutResolvesAsFailed.
func TestConnectOperatorWholeLoopOnAPseudoTerminal(t *testing.T) {
	e2etest.Require(t)
	b, _ := e2etest.Parts(t)
	junitPath, marker := filepath.Join(t.TempDir(), "junit.xml"), newMarker()
	r := startConnectRun(t, marker, "--operator", "--operator-timeout", "2m", "--junit", junitPath, "--evidence-dir", "",
		"--run", "context/theme-change-notifies", "--run", "messages/add-to-conversation", "--run", "links/open-link")
	screen, publicURL := r.tm, r.publicURL

	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(screen.Screen(), "Waiting up to") {
		if time.Now().After(deadline) {
			t.Fatalf("no instructions:\n%s", screen.Screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(screen.Screen(), publicURL) {
		t.Fatalf("the instructions do not give %s:\n%s", publicURL, screen.Screen())
	}

	// The person: a host connected to the URL printed.
	p := connecttest.NewPerson(t, b, publicURL, publicURL+"/second")
	if err := p.AskForTheSuite(); err != nil {
		t.Fatal(err)
	}

	seen, clicked, confirmed, refused, interrupted := 0, 0, 0, 0, false
	var code int
	for done := false; !done; {
		select {
		case err := <-r.exited:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			done = true
			continue
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline.Add(3 * time.Minute)) {
			t.Fatalf("the run never ended:\n%s", screen.Screen())
		}
		last, n, ok := connecttest.NewPrompt(screen.Screen(), seen)
		if !ok {
			continue
		}
		seen = n
		switch {
		case confirmed > 0:
			// The check after the answered ones: Ctrl-C at its prompt.
			screen.Type("\x03")
			interrupted = true
		case strings.Contains(last, "· toggleTheme]"):
			refused++
			screen.Type("n\r")
		case strings.Contains(last, "· clickTrigger]"):
			if err := p.ClickTrigger(); err != nil {
				t.Errorf("clicking the trigger: %v", err)
			}
			clicked++
			screen.Type("\r")
		case strings.Contains(last, "· conversationContains]"):
			m := connecttest.Marker(last)
			if err := p.LooksForMarker(m); err != nil {
				t.Errorf("the marker %q never appeared in the conversation: %v", m, err)
			}
			confirmed++
			screen.Type("y\r")
		default:
			screen.Type("n\r")
		}
	}
	// All the process wrote is read once the terminal's copy ends.
	select {
	case <-screen.Done():
	case <-time.After(5 * time.Second):
	}
	if !interrupted || code != ExitSIGINT {
		t.Fatalf("exit %d (Ctrl-C sent: %v), want %d; clicked %d, confirmed %d, refused %d:\n%s", code, interrupted, ExitSIGINT, clicked, confirmed, refused, screen.Screen())
	}
	if clicked == 0 || refused == 0 {
		t.Errorf("clicked %d, refused %d: the selection did not ask what it should", clicked, refused)
	}
	for _, s := range []string{`click the button labelled "Conformance trigger"`, "stopped:"} {
		if !strings.Contains(screen.Screen(), s) {
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
	t.Logf("clicked %d, confirmed %d, refused %d; JUnit: %v", clicked, confirmed, refused, status)
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
	if v := find("context/theme-change-notifies"); !strings.Contains(v, "operator answered no: could not switch the host to the dark theme") {
		t.Errorf("context/theme-change-notifies: %s", v)
	}
	if v := find("links/open-link"); !strings.Contains(v, "not run") && !strings.Contains(v, string(protocol.StatusNotRun)) {
		t.Errorf("links/open-link after Ctrl-C: %s", v)
	}
	waitNoLeftovers(t, marker)
}
