package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// These tests call the functions directly through a small cli.App; they
// start no browser. Run them with -run 'Outputs|Expectations|Verdict|Report'.

// clearEnv removes every MCPCONFORM_* variable for the test, so the
// developer's environment cannot change what the flags read.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "MCPCONFORM_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

// withFlags runs action with a cli.Context parsed from args by a command
// carrying outputFlags, and returns the action's error as main would map it.
func withFlags(t *testing.T, args []string, action func(c *cli.Context) error) (int, error) {
	t.Helper()
	app := &cli.App{
		Name:           "mcpconform",
		ExitErrHandler: func(*cli.Context, error) {},
		Writer:         &bytes.Buffer{},
		ErrWriter:      &bytes.Buffer{},
		Commands: []*cli.Command{{
			Name:         "run",
			Flags:        outputFlags(),
			Action:       action,
			OnUsageError: func(c *cli.Context, err error, _ bool) error { return usage(err) },
		}},
	}
	err := app.Run(append([]string{"mcpconform", "run"}, args...))
	return exitCode(err), err
}

// outputsOf is the run configuration the output flags on c give.
func outputsOf(c *cli.Context) (Config, error) {
	var o outputConfig
	if err := load(c, &o); err != nil {
		return Config{}, usage(err)
	}
	return Config{Out: o}, nil
}

func loadExp(c *cli.Context) (*expectations.Expectations, error) {
	cfg, err := outputsOf(c)
	if err != nil {
		return nil, err
	}
	return loadExpectations(cfg.Out)
}

func writeOut(c *cli.Context, run *report.Run, exp *expectations.Expectations) error {
	cfg, err := outputsOf(c)
	if err != nil {
		return err
	}
	return cfg.Out.reports(cfg).Write(run, exp, nil)
}

func junitOpts(c *cli.Context) report.JUnitOptions {
	cfg, _ := outputsOf(c)
	return report.JUnitOptions{AttachmentsRoot: cfg.Out.AttachmentsRoot}
}

func kase(id string, st protocol.Status, msg string) report.Case {
	return report.Case{TestMeta: protocol.TestMeta{ID: id, Name: id, Clause: protocol.ClauseMust,
		Edition: protocol.EditionStable, SpecRef: "apps.mdx#x"}, Status: st, Message: msg, Duration: 10 * time.Millisecond}
}

func hostRun(host string, cases ...report.Case) report.Run {
	t0 := time.Date(2026, 9, 30, 10, 0, 0, 0, time.UTC)
	return report.Run{Tool: "mcpconform", Version: "test", StartedAt: t0, Duration: time.Second,
		Hosts: []report.HostRun{{Host: host, StartedAt: t0, Duration: time.Second, Cases: cases}}}
}

const expectationsYAML = `reference:
  - display/theme-toggle
  - id: tools/call-result
    reason: slow under load
    allow: [PASS, TIMEOUT]
  - lifecycle/teardown
  - display/absent-check
`

func writeExpectations(t *testing.T, dir, src string) string {
	t.Helper()
	path := filepath.Join(dir, "expectations.yml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOutputFlagsFromEnvAndCommandLine(t *testing.T) {
	clearEnv(t)
	flags := map[string]string{
		"json": "MCPCONFORM_JSON", "markdown": "MCPCONFORM_MARKDOWN", "expectations": "MCPCONFORM_EXPECTATIONS",
		"update-expectations": "MCPCONFORM_UPDATE_EXPECTATIONS", "attachments-root": "MCPCONFORM_ATTACHMENTS_ROOT",
	}
	for name, env := range flags {
		t.Setenv(env, "from-env-"+name)
	}
	t.Setenv("MCPCONFORM_ALLOW_STALE", "true")
	t.Setenv("MCPCONFORM_VERBOSE", "1")
	var got map[string]string
	var allowStale, verbose bool
	read := func(c *cli.Context) error {
		var o outputConfig
		if err := load(c, &o); err != nil {
			return usage(err)
		}
		got = map[string]string{"json": o.JSON, "markdown": o.Markdown, "expectations": o.Expectations,
			"update-expectations": o.updateTarget(), "attachments-root": o.AttachmentsRoot}
		allowStale, verbose = o.AllowStale, o.Verbose
		return nil
	}
	if _, err := withFlags(t, nil, read); err != nil {
		t.Fatal(err)
	}
	for name := range flags {
		if got[name] != "from-env-"+name {
			t.Errorf("--%s from the environment = %q", name, got[name])
		}
	}
	if !allowStale || !verbose {
		t.Errorf("bool flags from the environment: allow-stale %v verbose %v", allowStale, verbose)
	}
	// The command line wins.
	if _, err := withFlags(t, []string{"--json", "cli.json", "--allow-stale=false"}, read); err != nil {
		t.Fatal(err)
	}
	if got["json"] != "cli.json" || allowStale {
		t.Errorf("command line did not win: json %q allow-stale %v", got["json"], allowStale)
	}
	// A bad boolean in the environment is a usage error.
	t.Setenv("MCPCONFORM_VERBOSE", "maybe")
	if code, err := withFlags(t, nil, read); code != ExitUsage || !strings.Contains(err.Error(), "MCPCONFORM_VERBOSE") {
		t.Errorf("bad MCPCONFORM_VERBOSE: exit %d, %v", code, err)
	}
}

func TestLoadExpectations(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	good := writeExpectations(t, dir, expectationsYAML)
	bad := filepath.Join(dir, "bad.yml")
	os.WriteFile(bad, []byte("reference:\n  - display/theme-toggle\n  - id: a/b\n    allow: [SOMETIMES]\n"), 0o644)

	var exp *expectations.Expectations
	load := func(c *cli.Context) (err error) { exp, err = loadExp(c); return err }

	if _, err := withFlags(t, []string{"--expectations", good}, load); err != nil || len(exp.Entries("reference")) != 4 {
		t.Fatalf("good file: %v, %v", exp, err)
	}
	if _, err := withFlags(t, nil, load); err != nil || exp != nil {
		t.Errorf("no file: %v, %v", exp, err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"grammar error names file and line", []string{"--expectations", bad}, bad + `:4: allow: "SOMETIMES" is not a status`},
		{"missing file", []string{"--expectations", filepath.Join(dir, "nope.yml")}, "nope.yml"},
		{"unparsable update target", []string{"--update-expectations", bad}, "--update-expectations: " + bad + ":4:"},
		{"unparsable update target, old flag name", []string{"--update-baseline", bad}, "--update-expectations: " + bad + ":4:"},
		{"from the environment", nil, bad + ":4:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.args == nil {
				t.Setenv("MCPCONFORM_EXPECTATIONS", bad)
			}
			code, err := withFlags(t, c.args, load)
			if code != ExitUsage || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("exit %d, %v; want exit 2 and %q", code, err, c.want)
			}
		})
	}
	// An expectations file to be created need not exist yet.
	if _, err := withFlags(t, []string{"--update-expectations", filepath.Join(dir, "new.yml")}, load); err != nil {
		t.Errorf("new --update-expectations file: %v", err)
	}
}

// TestUpdateBaselineAlias: --update-expectations and MCPCONFORM_UPDATE_BASELINE,
// the old names of --update-expectations, still work so existing CI keeps
// working; the new name wins, and help shows only the new one.
func TestUpdateBaselineAlias(t *testing.T) {
	var got string
	read := func(c *cli.Context) error {
		var o outputConfig
		if err := load(c, &o); err != nil {
			return usage(err)
		}
		got = o.updateTarget()
		return nil
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"old flag", nil, []string{"--update-baseline", "old.yml"}, "old.yml"},
		{"old variable", map[string]string{"MCPCONFORM_UPDATE_BASELINE": "env-old.yml"}, nil, "env-old.yml"},
		{"new variable", map[string]string{"MCPCONFORM_UPDATE_EXPECTATIONS": "env-new.yml"}, nil, "env-new.yml"},
		{"new flag wins over the old one", nil, []string{"--update-baseline", "old.yml", "--update-expectations", "new.yml"}, "new.yml"},
		{"new variable wins over the old one", map[string]string{"MCPCONFORM_UPDATE_BASELINE": "env-old.yml", "MCPCONFORM_UPDATE_EXPECTATIONS": "env-new.yml"}, nil, "env-new.yml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			got = ""
			if _, err := withFlags(t, c.args, read); err != nil || got != c.want {
				t.Errorf("update target %q, %v; want %q", got, err, c.want)
			}
		})
	}
	var help bytes.Buffer
	app := &cli.App{Name: "mcpconform", Writer: &help, Commands: []*cli.Command{{Name: "run", Flags: outputFlags(), Action: func(*cli.Context) error { return nil }}}}
	if err := app.Run([]string{"mcpconform", "run", "--help"}); err != nil {
		t.Fatal(err)
	}
	if h := help.String(); !strings.Contains(h, "--update-expectations") || strings.Contains(h, "update-baseline") {
		t.Errorf("help should name --update-expectations and hide --update-baseline:\n%s", h)
	}
}

// TestVerdictCodes covers the exit code of every expectations outcome.
func TestVerdictCodes(t *testing.T) {
	exp, err := expectations.Parse("exp.yml", []byte(expectationsYAML))
	if err != nil {
		t.Fatal(err)
	}
	pass := kase("lifecycle/initialize", "PASS", "")
	for _, c := range []struct {
		name            string
		run             report.Run
		exp             *expectations.Expectations
		strict, lenient int
	}{
		{"all pass, no baseline", hostRun("reference", pass), nil, ExitOK, ExitOK},
		{"failure, no baseline", hostRun("reference", pass, kase("display/theme-toggle", "FAIL", "x")), nil, ExitFailures, ExitFailures},
		{"expected failure", hostRun("reference", pass, kase("display/theme-toggle", "FAIL", "x")), exp, ExitOK, ExitOK},
		{"expected timeout", hostRun("reference", kase("display/theme-toggle", "TIMEOUT", "x")), exp, ExitOK, ExitOK},
		{"regression", hostRun("reference", pass, kase("display/other", "FAIL", "x")), exp, ExitFailures, ExitFailures},
		{"error is a regression", hostRun("reference", pass, kase("display/other", "ERROR", "x")), exp, ExitFailures, ExitFailures},
		{"stale", hostRun("reference", kase("lifecycle/teardown", "PASS", "")), exp, ExitFailures, ExitOK},
		{"flaky allowed", hostRun("reference", pass, kase("tools/call-result", "TIMEOUT", "x")), exp, ExitOK, ExitOK},
		{"flaky passing", hostRun("reference", kase("tools/call-result", "PASS", "")), exp, ExitOK, ExitOK},
		{"flaky with another status", hostRun("reference", kase("tools/call-result", "FAIL", "x")), exp, ExitFailures, ExitFailures},
		{"absent entries", hostRun("reference", pass), exp, ExitOK, ExitOK},
		{"check with an expectations entry skipped", hostRun("reference", pass, kase("display/theme-toggle", "SKIP", "unsupported: toggleTheme")), exp, ExitOK, ExitOK},
		{"everything skipped", hostRun("reference", kase("a/b", "SKIP", "unsupported: clickTrigger"), kase("a/c", "NOTRUN", "")), nil, ExitNoTests, ExitNoTests},
		{"nothing selected", hostRun("reference"), exp, ExitNoTests, ExitNoTests},
		{"other host's entries do not apply", hostRun("chatgpt", kase("display/theme-toggle", "FAIL", "x")), exp, ExitFailures, ExitFailures},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := verdictCode(c.run, c.exp, false); got != c.strict {
				t.Errorf("verdictCode = %d, want %d", got, c.strict)
			}
			if got := verdictCode(c.run, c.exp, true); got != c.lenient {
				t.Errorf("verdictCode with --allow-stale = %d, want %d", got, c.lenient)
			}
			err := verdictError(c.run, c.exp, false)
			if exitCode(err) != c.strict {
				t.Errorf("verdictError exit %d, want %d", exitCode(err), c.strict)
			}
		})
	}
}

func TestVerdictErrorMessages(t *testing.T) {
	exp, _ := expectations.Parse("exp.yml", []byte(expectationsYAML))
	run := hostRun("reference", kase("lifecycle/teardown", "PASS", ""), kase("display/other", "FAIL", "x"))
	err := verdictError(run, exp, false)
	says(t, "the error", fmt.Sprint(err), "1 failure not in the expectations: reference display/other",
		"1 stale expectations entry (the check passes now; remove it from exp.yml, or pass --allow-stale): reference lifecycle/teardown")
	if err := verdictError(hostRun("reference", kase("a/b", "SKIP", "")), nil, false); err == nil || !strings.Contains(err.Error(), "every selected check was skipped") {
		t.Errorf("empty run: %v", err)
	}
	// Without an expectations file, failures carry no message: the console has them.
	var ee *exitError
	if err := verdictError(hostRun("h", kase("a/b", "FAIL", "x")), nil, false); !errors.As(err, &ee) || ee.err != nil || ee.code != ExitFailures {
		t.Errorf("plain failure: %v", err)
	}
}

// TestWriteOutputs writes JSON, Markdown and an updated expectations, and
// leaves the run marked so the JUnit and TAP writers render the expectations.
func TestWriteOutputs(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	expPath := writeExpectations(t, dir, "# ours\n"+expectationsYAML+"other-host:\n  - x/y\n")
	run := hostRun("reference",
		kase("lifecycle/initialize", "PASS", ""),
		kase("display/theme-toggle", "FAIL", "expected dark"),
		kase("lifecycle/teardown", "PASS", ""),
		kase("resources/csp", "FAIL", "img-src allowed"),
	)
	run.Hosts[0].Cases[1].Evidence = []string{filepath.Join(dir, "shots", "theme.png")}
	jsonPath, mdPath := filepath.Join(dir, "out", "results.json"), filepath.Join(dir, "out", "summary.md")
	args := []string{"--expectations", expPath, "--json", jsonPath, "--markdown", mdPath, "--update-expectations", expPath, "--attachments-root", dir}
	var junitXML bytes.Buffer
	_, err := withFlags(t, args, func(c *cli.Context) error {
		exp, err := loadExp(c)
		if err != nil {
			return err
		}
		if err := writeOut(c, &run, exp); err != nil {
			return err
		}
		return report.WriteJUnit(&junitXML, run, junitOpts(c))
	})
	if err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if back.Expectations != expPath || back.Hosts[0].Cases[1].Outcome() != report.OutcomeExpectedFail ||
		back.Hosts[0].Cases[2].Outcome() != report.OutcomeStale || len(back.Hosts[0].Absent) != 2 {
		t.Errorf("JSON read back: baseline %q, outcomes %s %s, absent %v", back.Expectations,
			back.Hosts[0].Cases[1].Outcome(), back.Hosts[0].Cases[2].Outcome(), back.Hosts[0].Absent)
	}

	md, err := os.ReadFile(mdPath)
	if err != nil {
		t.Fatal(err)
	}
	says(t, "Markdown", string(md), "1 passed, 1 failed, 0 skipped, 1 expected failure, 1 stale", "FAIL (expected, baseline)", "`resources/csp`")

	var suites junit.Testsuites
	if err := xml.Unmarshal(junitXML.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	tc := suites.Suites[0].Testcases[1]
	if tc.Skipped == nil || !strings.HasPrefix(tc.Skipped.Message, "expected failure (baseline)") {
		t.Errorf("baselined failure in JUnit: %+v", tc)
	}
	if tc.SystemOut == nil || tc.SystemOut.Data != "[[ATTACHMENT|shots/theme.png]]" {
		t.Errorf("attachment not relative to --attachments-root: %+v", tc.SystemOut)
	}

	updated, err := expectations.Load(expPath)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range updated.Entries("reference") {
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, " ") != "display/theme-toggle tools/call-result display/absent-check resources/csp" {
		t.Errorf("updated baseline entries %v", ids)
	}
	if len(updated.Entries("other-host")) != 1 {
		t.Error("another host's entries were lost")
	}
	if got := verdictCode(run, updated, false); got != ExitOK {
		t.Errorf("the run fails against its own updated baseline: exit %d", got)
	}
}

func TestWriteOutputsReportsWriteErrors(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	run := hostRun("reference", kase("a/b", "PASS", ""))
	mdPath := filepath.Join(dir, "summary.md")
	_, err := withFlags(t, []string{"--json", filepath.Join(blocker, "results.json"), "--markdown", mdPath}, func(c *cli.Context) error {
		return writeOut(c, &run, nil)
	})
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("error %v", err)
	}
	if _, statErr := os.Stat(mdPath); statErr != nil {
		t.Error("one failed report stopped the others")
	}
}

// reportApp runs the report command as the CLI would.
func reportApp(t *testing.T, stdin string, args ...string) (stdout string, code int, err error) {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{
		Name:           "mcpconform",
		ExitErrHandler: func(*cli.Context, error) {},
		Reader:         strings.NewReader(stdin),
		Writer:         &out,
		ErrWriter:      &bytes.Buffer{},
		Commands:       []*cli.Command{reportCommand()},
	}
	app.Commands[0].OnUsageError = func(c *cli.Context, err error, _ bool) error { return usage(err) }
	err = app.Run(append([]string{"mcpconform", "report"}, args...))
	return out.String(), exitCode(err), err
}

// saveJSON writes run to path as run --json does.
func saveJSON(t *testing.T, path string, run report.Run) {
	t.Helper()
	if err := report.WriteFile(path, func(w io.Writer) error { return report.WriteJSON(w, run) }); err != nil {
		t.Fatal(err)
	}
}

// TestReportConvertsWithoutRunning: the reports made from a saved run are
// byte for byte those the run would have written.
func TestReportConvertsWithoutRunning(t *testing.T) {
	dir := t.TempDir()
	exp, _ := expectations.Parse("exp.yml", []byte(expectationsYAML))
	run := hostRun("reference", kase("lifecycle/initialize", "PASS", ""), kase("display/theme-toggle", "FAIL", "x"),
		kase("visibility/hidden", "SKIP", "unsupported: readModelToolList"))
	run.Hosts[0].Cases[1].Evidence = []string{"/ci/project/shot.png"}
	expectations.Apply(&run, exp)
	saved := filepath.Join(dir, "results.json")
	saveJSON(t, saved, run)

	out := filepath.Join(dir, "reports")
	stdout, code, err := reportApp(t, "", "--from", saved, "--junit", filepath.Join(out, "junit.xml"),
		"--markdown", filepath.Join(out, "summary.md"), "--json", filepath.Join(out, "copy.json"), "--tap", "-",
		"--attachments-root", "/ci/project")
	if code != ExitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	want := func(write func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for name, w := range map[string]string{
		"junit.xml": want(func(b *bytes.Buffer) error {
			return report.WriteJUnit(b, run, report.JUnitOptions{AttachmentsRoot: "/ci/project"})
		}),
		"summary.md": want(func(b *bytes.Buffer) error { return report.WriteMarkdown(b, run) }),
		"copy.json":  want(func(b *bytes.Buffer) error { return report.WriteJSON(b, run) }),
	} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != w {
			t.Errorf("%s differs from the run's own:\n--- got ---\n%s\n--- want ---\n%s", name, got, w)
		}
	}
	if tap := want(func(b *bytes.Buffer) error { return report.WriteTAP(b, run) }); stdout != tap {
		t.Errorf("TAP on stdout:\n%s\nwant\n%s", stdout, tap)
	}
	if !strings.Contains(stdout, "not ok 2 - display/theme-toggle # TODO baseline: expected failure") {
		t.Errorf("the saved baseline was not kept:\n%s", stdout)
	}

	// --expectations replaces the saved expectations.
	none := writeExpectations(t, dir, "reference: []\n")
	stdout, code, _ = reportApp(t, "", "--from", saved, "--tap", "-", "--expectations", none)
	if code != ExitOK || !strings.Contains(stdout, "\nnot ok 2 - display/theme-toggle\n") {
		t.Errorf("exit %d, --expectations not applied:\n%s", code, stdout)
	}

	// Results on stdin.
	data, _ := os.ReadFile(saved)
	stdout, code, _ = reportApp(t, string(data), "--from", "-", "--markdown", "-")
	if code != ExitOK || !strings.Contains(stdout, "### ✅ reference: 1 passed, 0 failed, 1 skipped, 1 expected failure") {
		t.Errorf("exit %d, stdin:\n%s", code, stdout)
	}
}

// TestReportMergesHosts: one --from per host (a CI matrix) gives one report
// with a suite and a subtest per host.
func TestReportMergesHosts(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	ra := hostRun("reference", kase("a/b", "PASS", ""))
	rb := hostRun("claude-web", kase("a/b", "FAIL", "x"))
	rb.StartedAt = ra.StartedAt.Add(-time.Minute)
	rb.Hosts[0].StartedAt = rb.StartedAt
	saveJSON(t, a, ra)
	saveJSON(t, b, rb)
	stdout, code, err := reportApp(t, "", "--from", a, "--from", b, "--tap", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	says(t, "merged TAP", stdout, "TAP version 14\n1..2\n# Subtest: reference\n", "\nok 1 - reference\n", "# Subtest: claude-web\n", "\nnot ok 2 - claude-web\n")
	merged, err := report.ReadRuns([]string{a, b}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !merged.StartedAt.Equal(rb.StartedAt) || merged.Duration != time.Minute+time.Second {
		t.Errorf("merged start %v duration %v", merged.StartedAt, merged.Duration)
	}
}

func TestReportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "results.json")
	saveJSON(t, good, hostRun("reference", kase("a/b", "PASS", "")))
	notResults := filepath.Join(dir, "junit.xml")
	os.WriteFile(notResults, []byte("<testsuites/>"), 0o644)
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"schemaVersion": 99}`), 0o644)
	badExp := writeExpectations(t, dir, "reference: nope\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no --from", []string{"--tap", "-"}, "report needs --from FILE"},
		{"no output", []string{"--from", good}, "nothing to write"},
		{"two outputs on stdout", []string{"--from", good, "--tap", "-", "--junit", "-"}, "only one report can go to stdout"},
		{"missing file", []string{"--from", filepath.Join(dir, "nope.json"), "--tap", "-"}, "nope.json"},
		{"not a results file", []string{"--from", notResults, "--tap", "-"}, "not a results file"},
		{"newer schema", []string{"--from", newer, "--tap", "-"}, "schemaVersion 99 is not supported"},
		{"same host twice", []string{"--from", good, "--from", good, "--tap", "-"}, `host "reference" is in both`},
		{"bad expectations", []string{"--from", good, "--tap", "-", "--expectations", badExp}, badExp + ":1:"},
		{"stray argument", []string{"results.json"}, "report takes no arguments"},
		{"unknown flag", []string{"--frob"}, "flag provided but not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, code, err := reportApp(t, "", c.args...)
			if code != ExitUsage || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("exit %d, %v; want exit 2 and %q", code, err, c.want)
			}
		})
	}
	// A report that cannot be written is not a usage error.
	blocker := filepath.Join(dir, "blocker")
	os.WriteFile(blocker, nil, 0o644)
	if _, code, err := reportApp(t, "", "--from", good, "--junit", filepath.Join(blocker, "junit.xml")); code != ExitInfra {
		t.Errorf("unwritable report: exit %d, %v", code, err)
	}
}

// verdictCode is the exit code verdictError gives a finished run.
func verdictCode(run report.Run, exp *expectations.Expectations, allowStale bool) int {
	return exitCode(verdictError(run, exp, allowStale))
}
