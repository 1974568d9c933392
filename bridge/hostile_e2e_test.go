package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// A hostile page: it installs its own window.__mcpConformance and answers
// the runner with whatever a ?mode= asks for. The page is controlled by the
// host under test, so the runner must survive all of it.
const hostilePage = `<!doctype html><script>
const mode = new URLSearchParams(location.search).get("mode");
const meta = (id) => ({id, name: id, clause: "MUST", edition: "2026-01-26", specRef: "-", manual: false, vantage: "in-view", needs: [], gesture: false});
let step = 0, polls = 0; window.resolved = [];
window.__mcpConformance = {
  listTests: () => ({protocolVersion: "1", suiteVersion: "evil", tests: [meta("x/one"), meta("x/two")]}),
  start: () => true,
  trigger: () => ({}),
  resolve: (seq, r) => { window.resolved.push(r); step++; return true; },
  poll: async () => {
    switch (mode) {
    case "huge":
      if (polls++ === 0) return {instance: "i", state: "running", runningId: "x/one", results: []};
      return {instance: "i", state: "running", runningId: "x/one", results: [], blob: "x".repeat(6 << 20)};
    case "garbage": return {instance: "i", state: 5, results: "nope"};
    case "badkind":
      if (step === 0) return {instance: "i", state: "running", runningId: "x/one", results: [], request: {seq: 1, kind: "navigate", url: "http://10.0.0.1/"}};
      return {instance: "i", state: "done", results: [{id: "x/one", status: "FAIL", durationMs: 1}, {id: "x/two", status: "PASS", durationMs: 1}]};
    case "proto":
      return JSON.parse('{"instance":"i","state":"done","__proto__":{"polluted":true},"results":[{"id":"x/one","status":"WIN","durationMs":1},{"id":"x/two","status":"PASS","durationMs":1,"__proto__":{"x":1}},{"id":"y/injected","status":"FAIL","durationMs":1}]}');
    }
  },
};
</script>`

// countingHost has every capability and counts calls: none may happen for
// an invalid request.
type countingHost struct{ calls int }

func (h *countingHost) Name() string { return "hostile" }
func (h *countingHost) Setup(context.Context, hosts.Env) error {
	return errors.New("unused")
}
func (h *countingHost) Teardown(context.Context) error { return nil }
func (h *countingHost) CheckLinkOpen(context.Context, protocol.Request) (protocol.Result, error) {
	h.calls++
	return protocol.Result{OK: true}, nil
}

func TestHostilePageCannotCrashOrSteerTheRunner(t *testing.T) {
	br, _ := e2etest.Parts(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/frame" {
			w.Write([]byte(hostilePage))
			return
		}
		// The suite is looked for in frames, as in a host page.
		w.Write([]byte(`<!doctype html><iframe src="/frame?` + r.URL.RawQuery + `"></iframe>`))
	}))
	t.Cleanup(srv.Close)

	run := func(t *testing.T, mode string) (report.HostRun, error, *countingHost) {
		c, p, err := br.NewPage()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := p.Goto(srv.URL + "/?mode=" + mode); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := bridge.FindSuite(ctx, c, p, nil, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		h := &countingHost{}
		hr, err := runner.Drive(ctx, s, h, runner.Options{Stall: 5 * time.Second}, report.HostRun{Host: "hostile"})
		if p.URL() != srv.URL+"/?mode="+mode {
			t.Errorf("the page steered the browser to %s", p.URL())
		}
		return hr, err, h
	}

	t.Run("oversized poll", func(t *testing.T) {
		hr, err, _ := run(t, "huge")
		if !errors.Is(err, hosts.ErrMalformed) || !strings.Contains(err.Error(), "more than the") {
			t.Fatalf("want ErrMalformed naming the size limit, got %v", err)
		}
		if hr.Cases[0].Status != protocol.StatusError || hr.Cases[1].Status != protocol.StatusNotRun {
			t.Errorf("statuses %s %s: the running check is ERROR, the rest NOTRUN", hr.Cases[0].Status, hr.Cases[1].Status)
		}
	})
	t.Run("wrong types", func(t *testing.T) {
		_, err, _ := run(t, "garbage")
		var ie *runner.InfraError
		if !errors.As(err, &ie) || !errors.Is(err, hosts.ErrMalformed) {
			t.Fatalf("want an infrastructure error for malformed polls, got %v", err)
		}
	})
	t.Run("unknown request kind", func(t *testing.T) {
		hr, err, h := run(t, "badkind")
		if err != nil {
			t.Fatal(err)
		}
		if h.calls != 0 {
			t.Errorf("the host was called %d times for an invalid request", h.calls)
		}
		if len(hr.Cases) != 2 || hr.Cases[1].Status != protocol.StatusPass {
			t.Errorf("the run did not go on: %+v", hr.Cases)
		}
	})
	t.Run("prototype pollution and injected ids", func(t *testing.T) {
		hr, err, _ := run(t, "proto")
		if err != nil {
			t.Fatal(err)
		}
		if len(hr.Cases) != 2 {
			t.Fatalf("cases %+v: an id the catalogue does not have was accepted", hr.Cases)
		}
		if hr.Cases[0].Status != protocol.StatusError || !strings.Contains(hr.Cases[0].Message, "unknown status") {
			t.Errorf("an invented status became %s %q, want ERROR", hr.Cases[0].Status, hr.Cases[0].Message)
		}
	})
}

// The suite's frame loads a new document (a host rendering the View
// again) whose channel comes a moment later: the bridge finds the suite
// again and answers with the new instance, instead of failing the call
// ("no execution context … answers"), which ended a run as "lost contact
// with the suite" when it fell on the runner's answer to a request.
func TestSuiteFoundAgainWhenItsDocumentIsReplaced(t *testing.T) {
	br, _ := e2etest.Parts(t)
	var loads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/frame" {
			// The first document sets the channel up at once; a later one
			// after 800 ms, as a View that loads its script.
			delay, instance := 0, "first"
			if loads.Add(1) > 1 {
				delay, instance = 800, "second"
			}
			fmt.Fprintf(w, `<!doctype html><script>setTimeout(() => { window.__mcpConformance = {
  poll: async () => ({instance: %q, state: "running", results: []}),
  resolve: () => false,
}; }, %d);</script>`, instance, delay)
			return
		}
		w.Write([]byte(`<!doctype html><iframe src="/frame"></iframe>`))
	}))
	t.Cleanup(srv.Close)
	c, p, err := br.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := p.Goto(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := bridge.FindSuite(ctx, c, p, []string{"iframe"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Evaluate(`() => document.querySelector("iframe").contentWindow.location.reload()`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; {
		poll, err := s.Poll(ctx, 0)
		if err != nil {
			t.Fatalf("a poll while the frame's new document set its channel up: %v", err)
		}
		if poll.Instance == "second" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new document's suite never answered")
		}
	}
}
