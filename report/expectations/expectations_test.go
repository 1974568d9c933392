package expectations

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/testkit/golden"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

const sample = `# known host bugs
claude-web:
  # theme is per conversation
  - display/theme-toggle
  - id: display/host-context-changed
    reason: "host bug #123"
  - id: tools/call-result
    reason: slow under load
    allow: [pass, Timeout]
  - lifecycle/teardown
  - visibility/app-tool-hidden
  - display/fullscreen
chatgpt: []
goose:
`

func mustParse(t *testing.T, src string) *Expectations {
	t.Helper()
	e, err := Parse("expectations.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestParse(t *testing.T) {
	e := mustParse(t, sample)
	if got := e.Hosts(); !reflect.DeepEqual(got, []string{"claude-web", "chatgpt", "goose"}) {
		t.Errorf("hosts %v", got)
	}
	want := []Entry{
		{ID: "display/theme-toggle", Line: 4},
		{ID: "display/host-context-changed", Reason: "host bug #123", Line: 5},
		{ID: "tools/call-result", Reason: "slow under load", Allow: []protocol.Status{"PASS", "TIMEOUT"}, Line: 7},
		{ID: "lifecycle/teardown", Line: 10},
		{ID: "visibility/app-tool-hidden", Line: 11},
		{ID: "display/fullscreen", Line: 12},
	}
	got := e.Entries("claude-web")
	for i := range got {
		got[i].node = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries\n got %+v\nwant %+v", got, want)
	}
	if len(e.Entries("chatgpt")) != 0 || len(e.Entries("goose")) != 0 || e.Entries("nope") != nil {
		t.Error("empty hosts have entries")
	}
	if ent, ok := e.Lookup("claude-web", "tools/call-result"); !ok || ent.Reason != "slow under load" {
		t.Errorf("Lookup = %+v, %v", ent, ok)
	}
	if _, ok := e.Lookup("chatgpt", "display/theme-toggle"); ok {
		t.Error("an entry of one host found for another")
	}
	for _, src := range []string{"", "# only a comment\n", "---\n"} {
		if e := mustParse(t, src); len(e.Hosts()) != 0 {
			t.Errorf("%q: hosts %v", src, e.Hosts())
		}
	}
}

// TestGrammarErrors: every mistake is reported with the file and the line
// where it is.
func TestGrammarErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"top-level list", "- display/theme-toggle\n", 1, "must be a mapping of host name"},
		{"host value scalar", "claude-web: display/theme-toggle\n", 1, `host "claude-web": the value must be a list`},
		{"host value mapping", "claude-web:\n  id: a/b\n", 2, "the value must be a list"},
		{"duplicate host", "a:\n  - x/y\nb: []\na: []\n", 4, `host "a" is listed twice (first at line 1)`},
		{"empty host name", "'': []\n", 1, "host name must be a non-empty string"},
		{"not an id", "h:\n  - theme toggle\n", 2, `"theme toggle" is not a check id`},
		{"id without area", "h:\n  - toggle\n", 2, `"toggle" is not a check id`},
		{"number entry", "h:\n  - x/y\n  - 42\n", 3, `"42" is not a check id`},
		{"null entry", "h:\n  -\n", 2, "an empty entry"},
		{"list entry", "h:\n  - [a/b]\n", 2, "an entry is a check id or a mapping"},
		{"colon space", "h:\n  - x/y\n  - display/theme-toggle: flaky\n", 3, "write `- id: display/theme-toggle`"},
		{"unknown key", "h:\n  - id: a/b\n    reson: typo\n", 3, `unknown key "reson"`},
		{"no id", "h:\n  - reason: r\n", 2, "entry without id"},
		{"id not scalar", "h:\n  - id: [a/b]\n", 2, "id must be a check id"},
		{"reason not text", "h:\n  - id: a/b\n    reason: [x]\n", 3, "reason must be text"},
		{"duplicate key", "h:\n  - id: a/b\n    id: a/c\n", 3, `key "id" given twice`},
		{"duplicate id", "h:\n  - a/b\n  - x/y\n  - id: a/b\n", 4, "a/b is listed twice (first at line 2)"},
		{"allow scalar", "h:\n  - id: a/b\n    allow: PASS\n", 3, "allow must be a non-empty list"},
		{"allow empty", "h:\n  - id: a/b\n    allow: []\n", 3, "allow must be a non-empty list"},
		{"allow bad status", "h:\n  - id: a/b\n    allow:\n      - PASS\n      - FLAKY\n", 5, `allow: "FLAKY" is not a status (PASS, FAIL, TIMEOUT, SKIP, NOTRUN, ERROR)`},
		{"allow BLOCKED", "h:\n  - id: a/b\n    allow:\n      - PASS\n      - BLOCKED\n", 5, `allow: BLOCKED (blocked by another check's failure) is never a failure and needs no entry`},
		{"allow OPTIONAL", "h:\n  - id: a/b\n    allow:\n      - PASS\n      - OPTIONAL\n", 5, `allow: OPTIONAL (a MAY check found the feature not implemented) is never a failure and needs no entry`},
		{"allow twice", "h:\n  - id: a/b\n    allow: [TIMEOUT, timeout]\n", 3, "allow: TIMEOUT given twice"},
		{"allow only pass", "h:\n  - id: a/b\n    allow: [PASS]\n", 3, "allow: [PASS] accepts only a pass"},
		{"tab", "h:\n\t- a/b\n", 2, "a tab in the indentation"},
		{"unclosed flow", "h: [a/b,\nx: []\n", 2, ""},
		{"bad indentation", "h:\n  - a/b\n - c/d\n", 3, ""},
		{"unterminated quote", "h:\n  - 'a/b\n", 2, ""},
		{"second document", "h: []\n---\ng: []\n", 2, "a second YAML document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("exp.yml", []byte(c.src))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want an *Error", err, err)
			}
			if pe.File != "exp.yml" || pe.Line != c.line || !strings.Contains(pe.Msg, c.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, pe.Line, c.line, c.want)
			}
			if !strings.HasPrefix(err.Error(), "exp.yml:") {
				t.Errorf("message does not start with file:line: %q", err)
			}
		})
	}
}

// TestGrammarErrorsAllReported: one pass finds every mistake, in line order.
func TestGrammarErrorsAllReported(t *testing.T) {
	_, err := Parse("exp.yml", []byte("a:\n  - bad id\n  - id: x/y\n    allow: [NOPE]\nb: 3\n"))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "exp.yml:2: ") || !strings.HasPrefix(lines[1], "exp.yml:4: ") || !strings.HasPrefix(lines[2], "exp.yml:5: ") {
		t.Errorf("errors:\n%s", err)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exp.yml")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "exp.yml") {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(path, []byte(sample), 0o644)
	e, err := Load(path)
	if err != nil || e.File != path || len(e.Entries("claude-web")) != 6 {
		t.Errorf("Load = %v, %v", e, err)
	}
}

func cs(id string, st protocol.Status, msg string) report.Case {
	return report.Case{TestMeta: protocol.TestMeta{ID: id, Name: id, Clause: protocol.ClauseMust}, Status: st, Message: msg}
}

// claudeRun has one case for each expectations outcome against sample.
func claudeRun() report.Run {
	return report.Run{Hosts: []report.HostRun{{Host: "claude-web", Cases: []report.Case{
		cs("lifecycle/initialize-capabilities", "PASS", ""),                        // pass, no entry
		cs("display/theme-toggle", "FAIL", "no host-context-changed"),              // expected failure
		cs("display/host-context-changed", "TIMEOUT", "no event within 5s"),        // expected failure (any failing status)
		cs("tools/call-result", "TIMEOUT", "slow"),                                 // flaky, allowed
		cs("lifecycle/teardown", "PASS", ""),                                       // stale
		cs("resources/csp-default", "FAIL", "img-src allowed"),                     // regression
		cs("visibility/app-tool-hidden", "SKIP", "unsupported: readModelToolList"), // skipped with an entry: tolerated
		// display/fullscreen: absent
	}}}}
}

func TestEvaluateEveryOutcome(t *testing.T) {
	run := claudeRun()
	r := Evaluate(run, mustParse(t, sample))
	got := map[string]report.Outcome{}
	for _, c := range r.Cases {
		got[c.ID] = c.Outcome
	}
	want := map[string]report.Outcome{
		"lifecycle/initialize-capabilities": report.OutcomePass,
		"display/theme-toggle":              report.OutcomeExpectedFail,
		"display/host-context-changed":      report.OutcomeExpectedFail,
		"tools/call-result":                 report.OutcomeFlaky,
		"lifecycle/teardown":                report.OutcomeStale,
		"resources/csp-default":             report.OutcomeFail,
		"visibility/app-tool-hidden":        report.OutcomeSkipped,
		"display/fullscreen":                report.OutcomeAbsent,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes\n got %v\nwant %v", got, want)
	}
	wantTally := report.Tally{Passed: 1, Failed: 1, ExpectedFail: 2, Flaky: 1, Stale: 1, Skipped: 1, Unsupported: 1}
	if r.Tally != wantTally || r.Absent != 1 || r.Judged != 6 {
		t.Errorf("tally %+v absent %d judged %d", r.Tally, r.Absent, r.Judged)
	}
	if len(r.Regressions()) != 1 || r.Regressions()[0].ID != "resources/csp-default" {
		t.Errorf("regressions %+v", r.Regressions())
	}
	if len(r.Stale()) != 1 || r.Stale()[0].ID != "lifecycle/teardown" || r.Stale()[0].Expect == nil {
		t.Errorf("stale %+v", r.Stale())
	}
	if run.Hosts[0].Cases[1].Expect != nil || run.Expectations != "" {
		t.Error("Evaluate changed the run it was given")
	}
}

// TestVerdicts covers each expectations outcome on its own, with and without
// --allow-stale.
func TestVerdicts(t *testing.T) {
	exp := mustParse(t, sample)
	one := func(cases ...report.Case) report.Run {
		return report.Run{Hosts: []report.HostRun{{Host: "claude-web", Cases: cases}}}
	}
	for _, c := range []struct {
		name            string
		run             report.Run
		strict, lenient Verdict
	}{
		{"expected failure", one(cs("display/theme-toggle", "FAIL", "x")), Pass, Pass},
		{"expected error", one(cs("display/theme-toggle", "ERROR", "x")), Pass, Pass},
		{"regression", one(cs("resources/csp-default", "FAIL", "x")), Fail, Fail},
		{"regression timeout", one(cs("resources/csp-default", "TIMEOUT", "x")), Fail, Fail},
		{"stale", one(cs("lifecycle/teardown", "PASS", "")), Fail, Pass},
		{"flaky allowed timeout", one(cs("tools/call-result", "TIMEOUT", "x")), Pass, Pass},
		{"flaky allowed pass", one(cs("tools/call-result", "PASS", "")), Pass, Pass},
		{"flaky with a status not allowed", one(cs("tools/call-result", "FAIL", "x")), Fail, Fail},
		{"absent", one(cs("lifecycle/initialize-capabilities", "PASS", "")), Pass, Pass},
		{"skipped with an entry", one(cs("visibility/app-tool-hidden", "SKIP", "unsupported: readModelToolList"), cs("a/b", "PASS", "")), Pass, Pass},
		{"not run with an entry", one(cs("display/theme-toggle", "NOTRUN", ""), cs("a/b", "PASS", "")), Pass, Pass},
		{"only skips", one(cs("visibility/app-tool-hidden", "SKIP", "unsupported: readModelToolList")), Empty, Empty},
		{"no cases", one(), Empty, Empty},
		{"no hosts", report.Run{}, Empty, Empty},
		{"only expected failures", one(cs("display/theme-toggle", "FAIL", "x")), Pass, Pass},
		{"host not in the file", report.Run{Hosts: []report.HostRun{{Host: "vscode", Cases: []report.Case{cs("display/theme-toggle", "FAIL", "x")}}}}, Fail, Fail},
		// A MAY not implemented never fails the run and needs no entry; an
		// entry for it (a check that used to be baselined) is tolerated.
		{"optional without an entry", one(cs("context/theme-change-notifies", "OPTIONAL", "no host-context-changed"), cs("a/b", "PASS", "")), Pass, Pass},
		{"optional with an entry", one(cs("display/theme-toggle", "OPTIONAL", "x"), cs("a/b", "PASS", "")), Pass, Pass},
		// A BLOCKED check is never a failure and needs no entry; an entry
		// for it is neither met nor stale (the check did not reach it).
		{"blocked without an entry", one(cs("model-context/next-turn", "BLOCKED", "blocked: x (judged by messages/add-to-conversation)"), cs("a/b", "PASS", "")), Pass, Pass},
		{"blocked with an entry", one(cs("display/theme-toggle", "BLOCKED", "blocked: x"), cs("a/b", "PASS", "")), Pass, Pass},
		{"regression and stale", one(cs("resources/csp-default", "FAIL", "x"), cs("lifecycle/teardown", "PASS", "")), Fail, Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Evaluate(c.run, exp)
			if v := r.Verdict(false); v != c.strict {
				t.Errorf("verdict %v, want %v", v, c.strict)
			}
			if v := r.Verdict(true); v != c.lenient {
				t.Errorf("verdict with stale allowed %v, want %v", v, c.lenient)
			}
		})
	}
	// Without an expectations file, every failure fails the run.
	if v := Evaluate(one(cs("display/theme-toggle", "FAIL", "x")), nil).Verdict(false); v != Fail {
		t.Errorf("no expectations: %v", v)
	}
}

func TestApplyAndMark(t *testing.T) {
	exp := mustParse(t, sample)
	run := claudeRun()
	orig := run.Hosts[0].Cases
	Apply(&run, exp)
	if run.Expectations != "expectations.yml" {
		t.Errorf("Expectations %q", run.Expectations)
	}
	h := run.Hosts[0]
	if h.Cases[0].Expect != nil || h.Cases[1].Expect == nil || h.Cases[3].Expect.Reason != "slow under load" || h.Cases[3].Expect.Line != 7 {
		t.Errorf("marks wrong: %+v", h.Cases)
	}
	if len(h.Absent) != 1 || h.Absent[0].ID != "display/fullscreen" || h.Absent[0].Line != 12 {
		t.Errorf("absent %+v", h.Absent)
	}
	if orig[1].Expect != nil {
		t.Error("Apply wrote through to the caller's case slice")
	}
	// Applying another file replaces the marks.
	Apply(&run, mustParse(t, "claude-web: []\n"))
	if run.Hosts[0].Cases[1].Expect != nil || len(run.Hosts[0].Absent) != 0 {
		t.Error("marks of the previous expectations survived")
	}
	// A nil expectations keeps the marks (a run read back from JSON).
	Apply(&run, exp)
	Apply(&run, nil)
	if run.Hosts[0].Cases[1].Expect == nil {
		t.Error("Apply(nil) dropped the marks")
	}

	c := cs("display/theme-toggle", "FAIL", "x")
	exp.Mark("claude-web", &c)
	if c.Outcome() != report.OutcomeExpectedFail {
		t.Errorf("Mark: outcome %s", c.Outcome())
	}
	exp.Mark("chatgpt", &c)
	if c.Expect != nil {
		t.Error("Mark for another host kept the entry")
	}
	var none *Expectations
	none.Mark("claude-web", &c) // must not panic
}

func TestUpdateGolden(t *testing.T) {
	run := claudeRun()
	run.Hosts = append(run.Hosts, report.HostRun{Host: "vscode", Cases: []report.Case{
		cs("display/theme-toggle", "TIMEOUT", "no hostcontextchanged\nwithin 5000ms # see log"),
		cs("a/b", "PASS", ""),
	}})
	run.Hosts[0].Cases = append(run.Hosts[0].Cases, cs("tools/call-args", "ERROR", "page crashed"))
	// A flaky entry that now fails with a status its list lacks.
	run.Hosts[0].Cases[3].Status = protocol.StatusFail
	out, err := Update(mustParse(t, sample), run)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "updated", out)
}

// TestUpdateAcceptsTheRun: judged against its own updated expectations, a run
// has no regression and no stale entry, and nothing known is lost.
func TestUpdateAcceptsTheRun(t *testing.T) {
	exp := mustParse(t, sample)
	run := claudeRun()
	run.Hosts[0].Cases[3].Status = protocol.StatusFail // flaky entry, status not allowed
	if Evaluate(run, exp).Verdict(false) != Fail {
		t.Fatal("fixture should fail against the sample")
	}
	out, err := Update(exp, run)
	if err != nil {
		t.Fatal(err)
	}
	next, err := Parse("updated.yml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := Evaluate(run, next)
	if v := r.Verdict(false); v != Pass || r.Tally.Stale != 0 || r.Tally.Failed != 0 {
		t.Errorf("verdict %v, tally %+v against\n%s", v, r.Tally, out)
	}
	// The stale entry is gone; the skipped and absent ones are kept; the
	// other hosts are untouched.
	ids := map[string]bool{}
	for _, e := range next.Entries("claude-web") {
		ids[e.ID] = true
	}
	if ids["lifecycle/teardown"] || !ids["visibility/app-tool-hidden"] || !ids["display/fullscreen"] || !ids["resources/csp-default"] {
		t.Errorf("entries after update: %v", ids)
	}
	if !reflect.DeepEqual(next.Hosts(), []string{"claude-web", "chatgpt", "goose"}) {
		t.Errorf("hosts after update: %v", next.Hosts())
	}
	if e, _ := next.Lookup("claude-web", "tools/call-result"); !reflect.DeepEqual(e.Allow, []protocol.Status{"PASS", "TIMEOUT", "FAIL"}) {
		t.Errorf("allow list after update: %v", e.Allow)
	}
	if !strings.Contains(string(out), "# theme is per conversation") || !strings.Contains(string(out), "# known host bugs") {
		t.Errorf("comments lost:\n%s", out)
	}
}

func TestUpdateFromNothing(t *testing.T) {
	run := claudeRun()
	run.Hosts[0].Cases[3].Expect = &report.Expectation{ID: "tools/call-result", Reason: "from another file", Allow: []protocol.Status{"PASS", "TIMEOUT"}}
	out, err := Update(nil, run)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "new", out)
	next, err := Parse("new.yml", out)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range next.Entries("claude-web") {
		ids = append(ids, e.ID)
	}
	want := []string{"display/theme-toggle", "display/host-context-changed", "tools/call-result", "resources/csp-default"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("entries %v, want %v", ids, want)
	}
	if e, _ := next.Lookup("claude-web", "tools/call-result"); e.Reason != "from another file" || len(e.Allow) != 2 {
		t.Errorf("carried entry %+v", e)
	}
	// A host whose value was null gets a list in its place.
	out, err = Update(mustParse(t, "goose:\nother: [x/y]\n"), report.Run{Hosts: []report.HostRun{{Host: "goose", Cases: []report.Case{cs("a/b", "FAIL", "m")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if e := mustParse(t, string(out)); len(e.Entries("goose")) != 1 || len(e.Entries("other")) != 1 {
		t.Errorf("null host not filled:\n%s", out)
	}
	// A host with no failure is written as an empty list.
	out, _ = Update(nil, report.Run{Hosts: []report.HostRun{{Host: "h", Cases: []report.Case{cs("a/b", "PASS", "")}}}})
	if !strings.Contains(string(out), "\nh: []\n") {
		t.Errorf("passing host:\n%s", out)
	}
}
