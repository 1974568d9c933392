package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/hosts"
)

// hostsCLI runs `mcpconform hosts ARGS` in process with the given
// environment and returns stdout, the error and its exit code.
func hostsCLI(t *testing.T, vars map[string]string, args ...string) (string, error, int) {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{
		Name:           "mcpconform",
		Writer:         &out,
		ErrWriter:      &out,
		ExitErrHandler: func(*cli.Context, error) {},
		Commands:       []*cli.Command{hostsCommandWith(envconfig.MapLookuper(vars))},
	}
	app.Commands[0].OnUsageError = func(c *cli.Context, err error, _ bool) error { return usage(err) }
	err := app.RunContext(context.Background(), append([]string{"mcpconform", "hosts"}, args...))
	return out.String(), err, exitCode(err)
}

// insp is the profile of docs/profiles.md, with a literal token.
func insp() map[string]string {
	return map[string]string{
		"MCPCONFORM_INSP_URL":          "http://127.0.0.1:6274",
		"MCPCONFORM_INSP_STEPS":        "goto {url}/?serverUrl={server}&autoConnect=SECRET-TOKEN&openApp=conformance_suite\nwait-for [data-testid=connection-status][data-status=connected]\nfill [data-testid=apps-form] input=hunter2-{nonce}\nclick [data-testid=open-app]",
		"MCPCONFORM_INSP_APP_FRAME":    "[data-testid=apps-form] iframe; iframe",
		"MCPCONFORM_INSP_THEME_TOGGLE": `button[aria-label="Toggle color scheme"]`,
		"MCPCONFORM_INSP_THEME_ATTR":   "html@data-mantine-color-scheme",
		"MCPCONFORM_INSP_CONFIRM":      "native",
		"MCPCONFORM_INSP_DIALOGS":      "download",
	}
}

func TestHostsListsBuiltinsAndProfiles(t *testing.T) {
	vars := insp()
	vars["MCPCONFORM_BROKEN_URL"] = ""                      // an unset secret
	vars["MCPCONFORM_INSPECTOR_URL"] = "http://127.0.0.1:1" // the built-in's attach variable, not a profile
	out, err, code := hostsCLI(t, vars)
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rows := map[string][]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		rows[f[0]] = f[1:]
	}
	for _, b := range hosts.Names() {
		if r := rows[b]; len(r) < 2 || r[0] != "built-in" {
			t.Errorf("built-in %s: %v", b, r)
		}
	}
	if !strings.Contains(strings.Join(rows["reference"], " "), "conversationContains") {
		t.Errorf("reference capabilities: %v", rows["reference"])
	}
	if r := rows["insp"]; len(r) != 2 || r[0] != "profile" || r[1] != "clickTrigger,confirmDialog,checkLinkOpen,toggleTheme,inspectFrame,readConsole,resetIsolation,checkDownload,readFrameMessages,observePrompts" {
		t.Errorf("insp: %v", r)
	}
	if r := strings.Join(rows["broken"], " "); !strings.HasPrefix(r, "profile invalid, 2 problems: mcpconform hosts --check broken") {
		t.Errorf("broken: %q", r)
	}
	if len(rows) != len(hosts.Names())+2 {
		t.Errorf("rows: %v", rows)
	}

	out, _, _ = hostsCLI(t, nil)
	if !strings.Contains(out, "no host profiles in the environment") || !strings.Contains(out, "MCPCONFORM_<PROFILE>_URL") {
		t.Errorf("without profiles:\n%s", out)
	}
}

func TestHostsCheck(t *testing.T) {
	out, err, code := hostsCLI(t, insp(), "--check", "insp")
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	says(t, "--check", out,
		"profile insp: OK",
		"MCPCONFORM_INSP_URL", "set (required)",
		"MCPCONFORM_INSP_STEP_TIMEOUT", "unset (default 30s)",
		"1. goto {url}/?…",
		// The length of what is typed ({nonce} is 16 characters), not of
		// the placeholder.
		"3. fill [data-testid=apps-form] input=(24 characters)",
		"4. click [data-testid=open-app]",
		"supported:   clickTrigger, confirmDialog",
		"conversationContains (CONVERSATION is not set)",
		"readModelToolList (MODEL_TOOLS is not set)",
		"openTool (OPEN_TOOL is not set)",
		"closeView (CLOSE is not set)",
		"cancelTool (CANCEL is not set)")
	if strings.Contains(out, "SECRET-TOKEN") || strings.Contains(out, "hunter2") {
		t.Errorf("--check prints a secret:\n%s", out)
	}

	for _, c := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"missing URL", without(insp(), "MCPCONFORM_INSP_URL"), []string{"MCPCONFORM_INSP_URL is not set"}},
		{"empty URL from an unset secret", with(insp(), "MCPCONFORM_INSP_URL", ""), []string{"MCPCONFORM_INSP_URL is set but empty", "unset CI secret"}},
		{"bad step", with(insp(), "MCPCONFORM_INSP_STEPS", "goto {url}; tap x"), []string{"MCPCONFORM_INSP_STEPS step 2", `unknown step "tap"`}},
		{"no such profile", map[string]string{}, []string{"MCPCONFORM_INSP_URL", "MCPCONFORM_INSP_STEPS", "docs/profiles.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err, code := hostsCLI(t, c.vars, "--check", "insp")
			if code != ExitUsage || err == nil {
				t.Fatalf("exit %d, want %d: %v\n%s", code, ExitUsage, err, out)
			}
			says(t, "the message", err.Error(), c.want...)
			if v, ok := c.vars["MCPCONFORM_INSP_URL"]; ok && v == "" && !regexp.MustCompile(`MCPCONFORM_INSP_URL\s+EMPTY`).MatchString(out) {
				t.Errorf("the variable table does not flag the empty URL:\n%s", out)
			}
		})
	}

	out, err, code = hostsCLI(t, nil, "--check", "reference")
	if code != ExitOK || !strings.Contains(out, "reference is a built-in host") {
		t.Errorf("--check reference: exit %d %v\n%s", code, err, out)
	}
	if _, err, code := hostsCLI(t, nil, "insp"); code != ExitUsage || !strings.Contains(err.Error(), "did you mean --check insp") {
		t.Errorf("a stray argument: exit %d %v", code, err)
	}
	if _, err, code := hostsCLI(t, nil, "--check"); code != ExitUsage {
		t.Errorf("--check without a name: exit %d %v", code, err)
	}
}

// Every capability is available to a profile: one that sets every
// variable has them all, and --check lists none as unsupported; a
// profile without them names, for each, the variable that enables it.
func TestHostsCheckEveryCapabilityForProfiles(t *testing.T) {
	vars := insp()
	for k, v := range map[string]string{
		"URL":            "http://127.0.0.1:{port}",
		"START":          "mcpconform serve --server {server} --listen 127.0.0.1:{port}",
		"READY":          "http://127.0.0.1:{port}/",
		"CONVERSATION":   "[role=log]",
		"USER_MESSAGES":  "[role=log] .user",
		"OPEN_TOOL":      "goto {url}/?tool={tool:url}&args={arguments:url}\nselect select[name=transport]=http\nwait-for-text [data-testid=status]=Connected",
		"OPEN_TOOL_PAGE": "new",
		"CLOSE":          "[data-testid=view-close]",
		"CANCEL":         "click [data-testid=stop][data-marker={marker:url}]\nwait-for-hidden [data-testid=stop]",
		"MODEL_TOOLS":    "[data-testid=model-tool]@data-name",
		"NEW_SESSION":    "goto {url}/?session=new",
		"AGENT":          "present",
		"VIEWS":          "replaced",
	} {
		vars["MCPCONFORM_INSP_"+k] = v
	}
	out, err, code := hostsCLI(t, vars, "--check", "insp")
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if !strings.Contains(out, "  unsupported: none\n") {
		t.Errorf("a capability is unsupported:\n%s", out)
	}
	for _, w := range []string{"MCPCONFORM_INSP_START ", "MCPCONFORM_INSP_READY ", "MCPCONFORM_INSP_OPEN_TOOL ", "MCPCONFORM_INSP_MODEL_TOOLS "} {
		if !strings.Contains(out, w) {
			t.Errorf("the variable table lacks %q:\n%s", w, out)
		}
	}
	if !regexp.MustCompile(`MCPCONFORM_INSP_START_TIMEOUT +unset \(default 1m\)`).MatchString(out) {
		t.Errorf("START_TIMEOUT's default is not shown:\n%s", out)
	}
	for _, never := range []string{"not available to profile", "Go hosts only"} {
		if strings.Contains(out, never) {
			t.Errorf("--check says %q:\n%s", never, out)
		}
	}
}

func with(m map[string]string, k, v string) map[string]string {
	m[k] = v
	return m
}

func without(m map[string]string, k string) map[string]string {
	delete(m, k)
	return m
}

// Issue #28 (and #23's "Also"): the command that checks a profile refuses,
// with exit 2 and a "did you mean", what `run` refuses: a misspelt field,
// a field of a profile no URL defines, a profile named like a built-in
// host, and a placeholder-shaped token that is no placeholder. `run`
// refuses each the same way, before anything starts.
func TestHostsCheckRefusesWhatRunRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"misspelt field", with(insp(), "MCPCONFORM_INSP_CONVERSATON", "[role=log]"),
			[]string{"unknown variable MCPCONFORM_INSP_CONVERSATON", "did you mean MCPCONFORM_INSP_CONVERSATION?"}},
		{"field of a profile that has no URL", with(insp(), "MCPCONFORM_INSPP_CLOSE", ".close"),
			[]string{"MCPCONFORM_INSPP_CLOSE belongs to no profile", "did you mean MCPCONFORM_INSP_CLOSE?"}},
		{"a profile named like a built-in host", with(insp(), "MCPCONFORM_MCP_UI_URL", "http://127.0.0.1:5173"),
			[]string{"MCPCONFORM_MCP_UI_URL: mcp-ui is a host built into mcpconform", "did you mean MCPCONFORM_MCP_UI_DEV_URL", "appbridge, chatgpt, claude, connect, inspector, mcp-ui, mcp-use, reference"}},
		{"a placeholder-shaped token", with(insp(), "MCPCONFORM_INSP_STEPS", "goto {url}/?s={Server}"),
			[]string{"MCPCONFORM_INSP_STEPS step 1", "unknown placeholder {Server}", "did you mean {server}?"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err, code := hostsCLI(t, c.vars, "--check", "insp")
			if code != ExitUsage || err == nil {
				t.Fatalf("hosts --check insp: exit %d, want %d: %v\n%s", code, ExitUsage, err, out)
			}
			says(t, "hosts --check", err.Error(), c.want...)
			if _, err, code := hostsCLI(t, c.vars); c.name != "a placeholder-shaped token" && code != ExitUsage {
				t.Errorf("hosts (the list): exit %d, want %d: %v", code, ExitUsage, err)
			}

			clearEnv(t)
			for k, v := range c.vars {
				t.Setenv(k, v)
			}
			var o, e strings.Builder
			if code := runIO([]string{"run", "--host", "insp", "--evidence-dir", ""}, strings.NewReader(""), &o, &e); code != ExitUsage {
				t.Fatalf("run --host insp: exit %d, want %d\n%s", code, ExitUsage, e.String())
			}
			says(t, "run", e.String(), c.want...)
		})
	}
}

// A fixture port that is taken stops the run with exit code 2 (the port
// is the user's choice, to free or change), naming it, before any browser
// starts; --fixture-port makes no sense with --public-url.
func TestFixturePortInUse(t *testing.T) {
	clearEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	// A browser that cannot start: the run must stop before it.
	t.Setenv("MCPCONFORM_BROWSER", "/nonexistent/chromium")
	var o, e strings.Builder
	code := runIO([]string{"run", "--fixture-port", fmt.Sprint(port), "--evidence-dir", ""}, strings.NewReader(""), &o, &e)
	if code != ExitUsage || !strings.Contains(e.String(), fmt.Sprintf("cannot listen on 127.0.0.1:%d", port)) || !strings.Contains(e.String(), "another process listens there") {
		t.Errorf("exit %d, want %d naming the port:\n%s", code, ExitUsage, e.String())
	}
	e.Reset()
	code = runIO([]string{"run", "--host", "connect", "--public-url", "https://x.example/mcp", "--fixture-port", "8765"}, strings.NewReader(""), &o, &e)
	if code != ExitUsage || !strings.Contains(e.String(), "with --public-url") {
		t.Errorf("--fixture-port with --public-url: exit %d\n%s", code, e.String())
	}
}
