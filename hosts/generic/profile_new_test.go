package generic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// full is good() with every variable of issue #14 set: a profile with
// every capability.
func full() map[string]string {
	return with(good(),
		"MCPCONFORM_DEMO_URL", "http://127.0.0.1:{port}",
		"MCPCONFORM_DEMO_START", "my-host --server {server} --port {port}",
		"MCPCONFORM_DEMO_READY", "http://127.0.0.1:{port}/health",
		"MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?tool={tool:url}&args={arguments:url}\nselect select#transport=Streamable HTTP\nwait-for-text [data-testid=status]=Connected\nwait-for-hidden .spinner",
		"MCPCONFORM_DEMO_CLOSE", `[data-testid="view-close"]`,
		"MCPCONFORM_DEMO_CANCEL", "click .card:has-text(\"{marker}\") .stop\nwait-for-hidden .card:has-text(\"{marker}\") .stop",
		"MCPCONFORM_DEMO_MODEL_TOOLS", `ul.tools li@data-name`,
		"MCPCONFORM_DEMO_NEW_SESSION", "goto {url}/chat/new\nwait-for ul.tools",
		"MCPCONFORM_DEMO_AGENT", "present",
		"MCPCONFORM_DEMO_VIEWS", "replaced",
	)
}

func TestEveryCapabilityFromAProfile(t *testing.T) {
	h, err := Lookup("demo", envconfig.MapLookuper(full()))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range protocol.Kinds {
		if !hosts.Supports(h, k) {
			t.Errorf("%s is not supported", k)
		}
	}
	c, _ := Unwrap(h)
	cfg := c.cfg
	if cfg.start == "" || cfg.ready.url != "http://127.0.0.1:{port}/health" || cfg.ready.line != "" || cfg.startTimeout != time.Minute {
		t.Errorf("start %q ready %+v timeout %s", cfg.start, cfg.ready, cfg.startTimeout)
	}
	if len(cfg.openTool) != 4 || cfg.openToolSame {
		t.Fatalf("open tool %+v same %v", cfg.openTool, cfg.openToolSame)
	}
	if s := cfg.openTool[1]; s.Verb != VerbSelect || s.Target != "select#transport" || s.Text != "Streamable HTTP" {
		t.Errorf("select step %+v", s)
	}
	if s := cfg.openTool[2]; s.Verb != VerbWaitForText || s.Target != "[data-testid=status]" || s.Text != "Connected" {
		t.Errorf("wait-for-text step %+v", s)
	}
	if s := cfg.openTool[3]; s.Verb != VerbWaitForHidden || s.Target != ".spinner" {
		t.Errorf("wait-for-hidden step %+v", s)
	}
	// A selector, and steps.
	if cfg.close.sel != `[data-testid="view-close"]` || len(cfg.close.steps) != 0 {
		t.Errorf("close %+v", cfg.close)
	}
	if cfg.cancel.sel != "" || len(cfg.cancel.steps) != 2 || cfg.cancel.steps[0].Verb != VerbClick {
		t.Errorf("cancel %+v", cfg.cancel)
	}
	if cfg.modelTools != (attrSpec{sel: "ul.tools li", attr: "data-name"}) {
		t.Errorf("model tools %+v", cfg.modelTools)
	}
	// Text, not an attribute; a READY line; the same page.
	h, err = Lookup("demo", envconfig.MapLookuper(with(full(),
		"MCPCONFORM_DEMO_MODEL_TOOLS", `[data-testid="model-tool"]`,
		"MCPCONFORM_DEMO_READY", "line: listening on",
		"MCPCONFORM_DEMO_OPEN_TOOL_PAGE", "Same",
		"MCPCONFORM_DEMO_OPEN_TOOL", "click [data-testid=tool-picker]; click [data-tool={tool}]; fill textarea={arguments}")))
	if err != nil {
		t.Fatal(err)
	}
	c, _ = Unwrap(h)
	if c.cfg.modelTools != (attrSpec{sel: `[data-testid="model-tool"]`}) || c.cfg.ready.line != "listening on" || !c.cfg.openToolSame {
		t.Errorf("model tools %+v ready %+v same %v", c.cfg.modelTools, c.cfg.ready, c.cfg.openToolSame)
	}
	// checkDownload needs no variable; UNSUPPORTED removes the new ones too.
	h, _ = Lookup("demo", envconfig.MapLookuper(with(good(), "MCPCONFORM_DEMO_UNSUPPORTED", "checkDownload")))
	if hosts.Supports(h, protocol.KindCheckDownload) {
		t.Error("UNSUPPORTED=checkDownload is ignored")
	}
	if h, _ := Lookup("demo", envconfig.MapLookuper(good())); !hosts.Supports(h, protocol.KindCheckDownload) {
		t.Error("checkDownload is not always available")
	}
}

func TestBadNewVariables(t *testing.T) {
	refused(t, []badProfile{
		{"START without READY", with(full(), "MCPCONFORM_DEMO_READY", "<unset>"),
			[]string{"MCPCONFORM_DEMO_START", "MCPCONFORM_DEMO_READY is not", "line:TEXT"}},
		{"READY without START", with(full(), "MCPCONFORM_DEMO_START", "<unset>"),
			[]string{"MCPCONFORM_DEMO_READY", "MCPCONFORM_DEMO_START is not"}},
		{"READY neither URL nor line", with(full(), "MCPCONFORM_DEMO_READY", "soon"),
			[]string{"MCPCONFORM_DEMO_READY", "neither an http(s) URL"}},
		{"READY line without text", with(full(), "MCPCONFORM_DEMO_READY", "line:  "),
			[]string{"MCPCONFORM_DEMO_READY", "waits for nothing"}},
		{"unknown placeholder in START", with(full(), "MCPCONFORM_DEMO_START", "run --tool {tool}"),
			[]string{"MCPCONFORM_DEMO_START", "unknown placeholder {tool}"}},
		{"bad START_TIMEOUT", with(full(), "MCPCONFORM_DEMO_START_TIMEOUT", "-5s"),
			[]string{"MCPCONFORM_DEMO_START_TIMEOUT", "positive"}},
		{"unknown placeholder in URL", with(full(), "MCPCONFORM_DEMO_URL", "http://127.0.0.1:{server}"),
			[]string{"MCPCONFORM_DEMO_URL", "unknown placeholder {server}", "{port}"}},
		{"OPEN_TOOL never names the tool", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL", "never uses {tool}"}},
		{"OPEN_TOOL in a new tab starts blank", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "click [data-tool={tool}]"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 1", "the first step must be goto"}},
		{"{marker} is not OPEN_TOOL's", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/{tool}/{marker}"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 1", "unknown placeholder {marker}", "{tool} or {arguments}"}},
		{"{tool} is not STEPS'", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}/{tool}"),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "unknown placeholder {tool}"}},
		{"bad OPEN_TOOL_PAGE", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL_PAGE", "popup"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL_PAGE", `"popup" is neither "new"`, `"same"`}},
		{"OPEN_TOOL_PAGE without OPEN_TOOL", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "<unset>", "MCPCONFORM_DEMO_OPEN_TOOL_PAGE", "same"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL_PAGE", "MCPCONFORM_DEMO_OPEN_TOOL is not"}},
		{"bad CLOSE selector", with(full(), "MCPCONFORM_DEMO_CLOSE", "button[title=Close"),
			[]string{"MCPCONFORM_DEMO_CLOSE", `unclosed "["`}},
		{"unknown placeholder in CLOSE", with(full(), "MCPCONFORM_DEMO_CLOSE", ".card:has-text('{tool}') .close"),
			[]string{"MCPCONFORM_DEMO_CLOSE", "unknown placeholder {tool}", "{marker}"}},
		{"bad CANCEL step", with(full(), "MCPCONFORM_DEMO_CANCEL", "click .stop; tap .confirm"),
			[]string{"MCPCONFORM_DEMO_CANCEL step 2", `unknown step "tap"`}},
		{"NEW_SESSION without MODEL_TOOLS", with(full(), "MCPCONFORM_DEMO_MODEL_TOOLS", "<unset>"),
			[]string{"MCPCONFORM_DEMO_NEW_SESSION", "MCPCONFORM_DEMO_MODEL_TOOLS is not"}},
		{"bad NEW_SESSION step", with(full(), "MCPCONFORM_DEMO_NEW_SESSION", "goto {url}/new; tap .new-chat"),
			[]string{"MCPCONFORM_DEMO_NEW_SESSION step 2", `unknown step "tap"`}},
		{"MODEL_TOOLS ends with @", with(full(), "MCPCONFORM_DEMO_MODEL_TOOLS", "li.tool@"),
			[]string{"MCPCONFORM_DEMO_MODEL_TOOLS", "ends with @"}},
		{"bad MODEL_TOOLS selector", with(full(), "MCPCONFORM_DEMO_MODEL_TOOLS", "li[data-name@data-name"),
			[]string{"MCPCONFORM_DEMO_MODEL_TOOLS", "unclosed"}},
		{"select without =", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}; select select#transport"),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "select needs SELECTOR=VALUE"}},
		{"wait-for-text without text", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}; wait-for-text .status="),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "wait-for-text needs SELECTOR=TEXT", "empty"}},
		{"wait-for-hidden without selector", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}; wait-for-hidden"),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "wait-for-hidden needs a selector"}},
		{"bad URL form", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}/?s={server:uri}"),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "unknown placeholder {server:uri}"}},
	})
}

func TestURLFormAndValueLength(t *testing.T) {
	vars := map[string]string{PhServer: "http://127.0.0.1:9/mcp?a=b c", PhArguments: `{"nonce":"x&y"}`, PhTool: "conformance_suite"}
	got := expand("goto {url}/?s={server:url}&t={tool:url}&a={arguments:url}&raw={server}", vars)
	want := "goto {url}/?s=http%3A%2F%2F127.0.0.1%3A9%2Fmcp%3Fa%3Db%20c&t=conformance_suite&a=%7B%22nonce%22%3A%22x%26y%22%7D&raw=http://127.0.0.1:9/mcp?a=b c"
	if got != want {
		t.Errorf("expand:\n got %s\nwant %s", got, want)
	}
	// base64url, without padding: what the Inspector's appArgs take.
	if got := expand("appArgs={arguments:base64url}", map[string]string{PhArguments: `{"probe":"p?>"}`}); got != "appArgs=eyJwcm9iZSI6InA_PiJ9" {
		t.Errorf("base64url: %s", got)
	}
	if URLEncode("a b+c/ü") != "a%20b%2Bc%2F%C3%BC" {
		t.Errorf("URLEncode: %s", URLEncode("a b+c/ü"))
	}
	// --check gives the length of what is typed: {nonce} is 16 characters;
	// the length of a value known only at run time is left to the run.
	f := Step{Verb: VerbFill, Target: "input", Text: "n={nonce}"}
	if s := f.String(); s != "fill input=(18 characters)" {
		t.Errorf("String: %s", s)
	}
	g := Step{Verb: VerbFill, Target: "input", Text: "{server:url} {nonce}"}
	if s := g.String(); s != "fill input=(17 characters + {server:url})" {
		t.Errorf("String: %s", s)
	}
	if s := g.Describe(map[string]string{PhServer: "http://h/", PhNonce: "ab"}); s != "fill input=(20 characters)" {
		t.Errorf("Describe: %s", s)
	}
	if s := (Step{Verb: VerbSelect, Target: "select", Text: "http"}).String(); s != "select select=http" {
		t.Errorf("select: %s", s)
	}
}

// START runs with the run's placeholders, its output goes to the log,
// READY (a line or a URL) says when it is up, and Teardown stops its whole
// process group, a child it started in the background included.
func TestStartAndReady(t *testing.T) {
	if !startSupported {
		t.Skip("START needs process groups")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The log is written by START's output reader while the test reads it.
	newHost := func(t *testing.T, start, ready string, timeout string) (*Host, func() []string) {
		t.Helper()
		v := with(good(), "MCPCONFORM_DEMO_START", start, "MCPCONFORM_DEMO_READY", ready, "MCPCONFORM_DEMO_START_TIMEOUT", timeout)
		hh, err := Lookup("demo", envconfig.MapLookuper(v))
		if err != nil {
			t.Fatal(err)
		}
		h, _ := Unwrap(hh)
		var (
			mu  sync.Mutex
			log []string
		)
		h.logf = func(f string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			log = append(log, strings.TrimSpace(strings.ReplaceAll(fmtS(f, a...), "\n", " ")))
		}
		h.vars = map[string]string{PhServer: "http://127.0.0.1:9/mcp?token=SECRET", PhPort: "4711", PhNonce: "n"}
		return h, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(log)
		}
	}

	t.Run("line", func(t *testing.T) {
		h, log := newHost(t, `sleep 300 & echo $! > `+pidFile+`; echo "serving {server} on {port}"; echo "up and listening"; wait`, "line:listening", "20s")
		if err := h.startCommand(context.Background()); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if syscall.Kill(child, 0) != nil {
			t.Fatalf("the background child %d is not running", child)
		}
		joined := strings.Join(log(), "\n")
		if !strings.Contains(joined, "demo start: serving http://127.0.0.1:9/mcp?… on 4711") || strings.Contains(joined, "SECRET") || strings.Contains(joined, "sleep 300") {
			t.Errorf("the log (query strings hidden):\n%s", joined)
		}
		if err := h.Teardown(context.Background()); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(child, 0) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("the background child %d survived Teardown", child)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("coloured line", func(t *testing.T) {
		// A host that colours its output word by word (as dev servers
		// do): READY matches the text, and the log holds no escapes.
		h, log := newHost(t, `printf '\033[32mup\033[0m and \033[1;34mlistening\033[0m\n'; exec sleep 300`, "line:up and listening", "20s")
		if err := h.startCommand(context.Background()); err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(log(), "\n")
		if !strings.Contains(joined, "demo start: up and listening") || strings.Contains(joined, "\x1b") {
			t.Errorf("the log, without terminal colours:\n%q", joined)
		}
		if err := h.Teardown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("url", func(t *testing.T) {
		var up atomic.Bool
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !up.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusNotFound) // any answer below 500 is up
		}))
		defer srv.Close()
		h, _ := newHost(t, "sleep 300", srv.URL+"/ready", "20s")
		time.AfterFunc(600*time.Millisecond, func() { up.Store(true) })
		t0 := time.Now()
		if err := h.startCommand(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d < 500*time.Millisecond {
			t.Errorf("ready after %s, before the URL answered below 500", d)
		}
		if err := h.Teardown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("exits first", func(t *testing.T) {
		h, _ := newHost(t, "echo cannot bind {port} >&2; exit 3", "line:never", "20s")
		err := h.startCommand(context.Background())
		var se *SetupError
		if !errors.As(err, &se) || se.Variable != "MCPCONFORM_DEMO_START" || !errors.Is(err, ErrStep) ||
			!strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "cannot bind 4711") {
			t.Fatalf("want a SetupError naming START with its output, got %v", err)
		}
		h.Teardown(context.Background())
	})

	t.Run("never ready", func(t *testing.T) {
		h, _ := newHost(t, "sleep 300", "line:never", "1s")
		t0 := time.Now()
		err := h.startCommand(context.Background())
		var se *SetupError
		if !errors.As(err, &se) || se.Variable != "MCPCONFORM_DEMO_READY" || !strings.Contains(err.Error(), "not ready within 1s (MCPCONFORM_DEMO_START_TIMEOUT)") {
			t.Fatalf("want a SetupError naming READY, got %v", err)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("gave up after %s with START_TIMEOUT=1s", d)
		}
		if err := h.Teardown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func fmtS(f string, a ...any) string { return fmt.Sprintf(f, a...) }

// A profile given in Go gets START_TIMEOUT's default too.
func TestGoProfileDefaults(t *testing.T) {
	h, err := New("go-demo", Profile{URL: "http://127.0.0.1:{port}", Steps: "goto {url}", Start: "true", Ready: "line:x"}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Unwrap(h)
	if c.cfg.startTimeout != time.Minute || c.cfg.stepTimeout != 30*time.Second {
		t.Errorf("defaults: start %s, step %s", c.cfg.startTimeout, c.cfg.stepTimeout)
	}
}

// --check describes START, OPEN_TOOL, CLOSE, CANCEL, MODEL_TOOLS and NEW_SESSION
// without their command lines or typed text.
func TestCheckDescribesTheActions(t *testing.T) {
	r := Check("demo", envconfig.MapLookuper(with(full(), "MCPCONFORM_DEMO_START", "host --token TOPSECRET --port {port}")))
	if !r.OK() {
		t.Fatal(r.Err)
	}
	got := map[string]Action{}
	for _, a := range r.Actions {
		got[a.Variable] = a
	}
	if a := got["START"]; a.What != "a command, ready at http://127.0.0.1:{port}/health answering (within 1m)" {
		t.Errorf("START: %q", a.What)
	}
	if a := got["OPEN_TOOL"]; a.What != "steps, in a new tab" || len(a.Steps) != 4 {
		t.Errorf("OPEN_TOOL: %+v", a)
	}
	if a := got["CLOSE"]; a.What != `click [data-testid="view-close"] nearest the View` {
		t.Errorf("CLOSE: %q", a.What)
	}
	if a := got["CANCEL"]; a.What != "steps, in the View's page" || len(a.Steps) != 2 {
		t.Errorf("CANCEL: %+v", a)
	}
	if a := got["MODEL_TOOLS"]; a.What != "the data-name of each ul.tools li" {
		t.Errorf("MODEL_TOOLS: %q", a.What)
	}
	if a := got["NEW_SESSION"]; a.What != "steps, in a new tab, then MODEL_TOOLS read there" || len(a.Steps) != 2 {
		t.Errorf("NEW_SESSION: %+v", a)
	}
	var b strings.Builder
	if err := PrintCheck(&b, "demo", envconfig.MapLookuper(with(full(), "MCPCONFORM_DEMO_START", "host --token TOPSECRET --port {port}"))); err != nil {
		t.Fatal(err)
	}
	// Each step with placeholders is shown with example values, OPEN_TOOL's
	// with those of the suite's plain probe.
	if strings.Contains(b.String(), "TOPSECRET") || !strings.Contains(b.String(), "  OPEN_TOOL: steps, in a new tab\n"+
		`    (e.g. for the suite's plain probe: {tool} = conformance_slow, {arguments} = {"probe":"probe-1","delayMs":1200,"csp":true})`+"\n"+
		"    1. goto {url}/?…\n"+
		"       e.g. goto http://127.0.0.1:41000/?tool=conformance_slow&args=%7B%22probe%22%3A%22probe-1%22%2C%22delayMs%22%3A1200%2C%22csp%22%3Atrue%7D\n") ||
		!strings.Contains(b.String(), "    1. click .card:has-text(\"{marker}\") .stop\n       e.g. click .card:has-text(\"probe-1\") .stop\n") ||
		!strings.Contains(b.String(), "  unsupported: none\n") {
		t.Errorf("--check:\n%s", b.String())
	}
	if s := (Step{Verb: VerbFill, Target: "textarea", Text: "{arguments}"}).String(); s != "fill textarea=({arguments})" {
		t.Errorf("a fill of only a run-time value: %s", s)
	}
}
