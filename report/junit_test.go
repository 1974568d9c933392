package report

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

// junitWant is what a consumer must read for a case: the element and the
// counter it lands in.
func junitWant(c Case) string {
	switch c.Outcome() {
	case OutcomePass:
		return ""
	case OutcomeSkipped, OutcomeExpectedFail, OutcomeFlaky, OutcomeOptional:
		return "skipped"
	case OutcomeStale:
		return "failure"
	}
	switch c.Status {
	case "FAIL", "TIMEOUT":
		return "failure"
	}
	return "error"
}

// TestJUnitParses reads the report back as a consumer would and checks the
// rules the CI tools depend on.
func TestJUnitParses(t *testing.T) {
	for name, run := range map[string]Run{"two hosts": twoHostRun(), "baseline": fullRun()} {
		t.Run(name, func(t *testing.T) { checkJUnit(t, run) })
	}
}

func checkJUnit(t *testing.T, run Run) {
	buf := renderJUnit(t, run, JUnitOptions{})
	if !bytes.HasPrefix(buf.Bytes(), []byte(xml.Header)) {
		t.Error("missing XML header")
	}
	var got junit.Testsuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("report does not parse: %v", err)
	}

	if got.Name != "mcpconform" {
		t.Errorf("testsuites name = %q", got.Name)
	}
	if len(got.Suites) != len(run.Hosts) {
		t.Fatalf("%d suites, want %d", len(got.Suites), len(run.Hosts))
	}
	var allTests, allFailures, allErrors, allSkipped int
	for i, h := range run.Hosts {
		s := got.Suites[i]
		var failures, errs, skipped int
		for _, c := range h.Cases {
			switch junitWant(c) {
			case "failure":
				failures++
			case "error":
				errs++
			case "skipped":
				skipped++
			}
		}
		allTests += len(h.Cases)
		allFailures += failures
		allErrors += errs
		allSkipped += skipped
		if s.Name != "mcpconform/"+h.Host || s.Time == "" {
			t.Errorf("suite %d: name %q time %q", i, s.Name, s.Time)
		}
		if s.Tests != len(h.Cases) || s.Failures != failures || s.Errors != errs || s.Skipped != skipped {
			t.Errorf("suite %s: tests/failures/errors/skipped = %d/%d/%d/%d, want %d/%d/%d/%d", h.Host,
				s.Tests, s.Failures, s.Errors, s.Skipped, len(h.Cases), failures, errs, skipped)
		}
		if len(s.Testcases) != len(h.Cases) {
			t.Errorf("suite %s: %d testcases, want %d", h.Host, len(s.Testcases), len(h.Cases))
		}
		if (h.Infra != "") != (s.SystemErr != nil) {
			t.Errorf("suite %s: system-err %v, infra %q", h.Host, s.SystemErr, h.Infra)
		}
		props := map[string]string{}
		if s.Properties != nil {
			for _, p := range *s.Properties {
				props[p.Name] = p.Value
			}
		}
		for _, k := range []string{"host", "host.name", "host.version", "platform", "browser", "suite.version", "tool.version", "date", "spec.editions"} {
			if _, ok := props[k]; !ok {
				t.Errorf("suite %s: property %q missing", h.Host, k)
			}
		}
		if props["date"] != h.StartedAt.Format("2006-01-02T15:04:05Z07:00") {
			t.Errorf("suite %s: date %q", h.Host, props["date"])
		}
		if props["baseline"] != run.Expectations {
			t.Errorf("suite %s: baseline property %q, want %q", h.Host, props["baseline"], run.Expectations)
		}

		seen := map[[2]string]bool{}
		for j, tc := range s.Testcases {
			c := h.Cases[j]
			if tc.Name == "" || tc.Time == "" {
				t.Errorf("%s case %d: name %q time %q", h.Host, j, tc.Name, tc.Time)
			}
			key := [2]string{tc.Classname, tc.Name}
			if seen[key] {
				t.Errorf("duplicate (classname, name) %v", key)
			}
			seen[key] = true
			want := h.Host + "." + c.Area()
			if tc.Classname != want {
				t.Errorf("classname %q, want %q", tc.Classname, want)
			}
			kind := ""
			switch {
			case tc.Failure != nil:
				kind = "failure"
			case tc.Error != nil:
				kind = "error"
			case tc.Skipped != nil:
				kind = "skipped"
			}
			if kind != junitWant(c) {
				t.Errorf("%s %s (%s, %s): <%s>, want <%s>", h.Host, c.ID, c.Status, c.Outcome(), kind, junitWant(c))
			}
			for _, r := range []*junit.Result{tc.Failure, tc.Error, tc.Skipped} {
				if r == nil {
					continue
				}
				if r.Message == "" {
					t.Errorf("%s %s: empty message attribute", h.Host, tc.Name)
				}
				if !strings.HasPrefix(strings.ReplaceAll(oneLine(r.Data), "\t", " "), r.Message) {
					t.Errorf("%s %s: element text %q does not start with message %q", h.Host, tc.Name, r.Data, r.Message)
				}
				if strings.ContainsAny(r.Message, "\n\r\t") {
					t.Errorf("%s %s: message attribute %q is not one line", h.Host, tc.Name, r.Message)
				}
				if !strings.Contains(r.Data, "\nid: "+c.ID) {
					t.Errorf("%s %s: element text lacks the id line: %q", h.Host, tc.Name, r.Data)
				}
				if c.Clause != "" && !strings.Contains(r.Data, "\nclause: "+string(c.Clause)) {
					t.Errorf("%s %s: element text lacks the clause: %q", h.Host, tc.Name, r.Data)
				}
				if c.SpecRef != "" && !strings.Contains(r.Data, c.SpecRef) {
					t.Errorf("%s %s: element text lacks the spec reference: %q", h.Host, tc.Name, r.Data)
				}
			}
			var out string
			if tc.SystemOut != nil {
				out = tc.SystemOut.Data
			}
			for _, e := range c.Evidence {
				if !strings.Contains(out, "[[ATTACHMENT|"+e+"]]") {
					t.Errorf("%s %s: no attachment line for %s in %q", h.Host, tc.Name, e, out)
				}
			}
		}
	}
	if got.Tests != allTests || got.Failures != allFailures || got.Errors != allErrors || got.Skipped != allSkipped {
		t.Errorf("testsuites counts %d/%d/%d/%d, want %d/%d/%d/%d", got.Tests, got.Failures, got.Errors, got.Skipped,
			allTests, allFailures, allErrors, allSkipped)
	}

	forEachString(got, func(where, s string) {
		for _, r := range s {
			if unicode.IsControl(r) && r != '\n' && r != '\t' {
				t.Errorf("%s: control character %U survived in %q", where, r, s)
			}
		}
		if strings.Contains(s, "[31m") || strings.Contains(s, "]8;;") {
			t.Errorf("%s: escape sequence residue in %q", where, s)
		}
	})
}

// forEachString calls f with every attribute value and text in the report.
func forEachString(ts junit.Testsuites, f func(where, s string)) {
	f("testsuites@name", ts.Name)
	for _, s := range ts.Suites {
		f("testsuite@name", s.Name)
		if s.Properties != nil {
			for _, p := range *s.Properties {
				f("property "+p.Name, p.Value)
			}
		}
		if s.SystemErr != nil {
			f("system-err", s.SystemErr.Data)
		}
		for _, tc := range s.Testcases {
			f("testcase@classname", tc.Classname)
			f("testcase@name", tc.Name)
			if tc.SystemOut != nil {
				f(tc.Name+" system-out", tc.SystemOut.Data)
			}
			for _, r := range []*junit.Result{tc.Failure, tc.Error, tc.Skipped} {
				if r != nil {
					f(tc.Name+" message", r.Message)
					f(tc.Name+" text", r.Data)
				}
			}
		}
	}
}

// TestJUnitStatusMapping pins the element and type chosen for each status.
func TestJUnitStatusMapping(t *testing.T) {
	buf := renderJUnit(t, oneHostRun(), JUnitOptions{})
	var got junit.Testsuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	h := referenceHost()
	for i, tc := range got.Suites[0].Testcases {
		c := h.Cases[i]
		var kind, typ, msg string
		switch {
		case tc.Failure != nil:
			kind, typ, msg = "failure", tc.Failure.Type, tc.Failure.Message
		case tc.Error != nil:
			kind, typ, msg = "error", tc.Error.Type, tc.Error.Message
		case tc.Skipped != nil:
			kind, typ, msg = "skipped", tc.Skipped.Type, tc.Skipped.Message
		}
		want := map[string][2]string{
			"PASS": {"", ""}, "FAIL": {"failure", "FAIL"}, "TIMEOUT": {"failure", "TIMEOUT"},
			"ERROR": {"error", "ERROR"}, "SKIP": {"skipped", c.ReasonCode()}, "NOTRUN": {"skipped", "not-run"},
			"OPTIONAL": {"skipped", "optional"}, "BLOCKED": {"skipped", "blocked:display/theme-toggle"},
		}[string(c.Status)]
		if kind != want[0] || typ != want[1] {
			t.Errorf("%s (%s): got <%s type=%q>, want <%s type=%q>", c.ID, c.Status, kind, typ, want[0], want[1])
		}
		if string(c.Status) == "NOTRUN" && !strings.HasPrefix(msg, "not run: ") {
			t.Errorf("%s: NOTRUN message %q", c.ID, msg)
		}
		if string(c.Status) == "BLOCKED" && msg != "blocked by display/theme-toggle: no theme change reached the View [spec apps.mdx#theming: \"Host SHOULD ...\"]" {
			t.Errorf("%s: BLOCKED message %q, want it to name the blocking check first", c.ID, msg)
		}
		if string(c.Status) == "OPTIONAL" && !strings.HasPrefix(msg, "optional, not implemented: ") {
			t.Errorf("%s: OPTIONAL message %q", c.ID, msg)
		}
	}
}

// TestJUnitBaselineMapping pins what each baseline outcome becomes, the
// message every consumer shows, and that the baseline reason is in the text.
func TestJUnitBaselineMapping(t *testing.T) {
	buf := renderJUnit(t, baselinedRun(), JUnitOptions{})
	var got junit.Testsuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	byID := map[string]junit.Testcase{}
	for _, tc := range got.Suites[0].Testcases {
		byID[tc.Classname+"/"+tc.Name] = tc
	}
	for _, c := range []struct {
		id, kind, typ, msgPrefix, text string
	}{
		{"claude-web.display/theme-toggle", "skipped", "expected-failure",
			"expected failure (baseline): no ui/notifications/host-context-changed", "baseline: expected to fail (host#12: theme is fixed per conversation)"},
		{"claude-web.display/host-context-changed", "skipped", "expected-failure",
			"expected failure (baseline): no hostcontextchanged", "status: TIMEOUT"},
		{"claude-web.tools/call-result", "skipped", "flaky-allowed",
			"allowed flaky TIMEOUT (baseline): tools/call answered", "baseline: allows PASS, TIMEOUT (slow under load)"},
		{"claude-web.tools/call-args", "", "", "", ""},
		{"claude-web.lifecycle/teardown", "failure", "STALE",
			"stale baseline entry: the check passes now", "baseline: expected to fail (fixed in 2026.09)"},
		{"claude-web.resources/csp-default", "failure", "FAIL", "img-src allowed", ""},
		{"claude-web.resources/csp-declared", "failure", "FAIL", "connect-src ignored", "baseline: allows PASS, TIMEOUT (flaky)"},
		{"claude-web.visibility/app-tool-hidden", "skipped", "unsupported:readModelToolList", "unsupported: readModelToolList", ""},
	} {
		tc, ok := byID[c.id]
		if !ok {
			t.Errorf("%s: no testcase", c.id)
			continue
		}
		var kind string
		var r *junit.Result
		switch {
		case tc.Failure != nil:
			kind, r = "failure", tc.Failure
		case tc.Error != nil:
			kind, r = "error", tc.Error
		case tc.Skipped != nil:
			kind, r = "skipped", tc.Skipped
		}
		if kind != c.kind {
			t.Errorf("%s: <%s>, want <%s>", c.id, kind, c.kind)
			continue
		}
		if r == nil {
			continue
		}
		if r.Type != c.typ || !strings.HasPrefix(r.Message, c.msgPrefix) || !strings.Contains(r.Data, c.text) {
			t.Errorf("%s: type %q message %q text %q; want type %q, message %q…, text containing %q",
				c.id, r.Type, r.Message, r.Data, c.typ, c.msgPrefix, c.text)
		}
	}
}

// TestJUnitAttachmentPaths covers the path rules: absolute by default,
// relative to the root when inside it, absolute when outside it, relative
// evidence resolved against the working directory, and paths GitLab's
// pattern could not read back left out.
func TestJUnitAttachmentPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	run := Run{Hosts: []HostRun{{Host: "h", Cases: []Case{{
		TestMeta: meta("a/b", "MUST", "", ""), Status: "FAIL", Message: "x",
		Evidence: []string{"out/shot.png", "/elsewhere/trace.zip", "", "out/shot.png", "bad|name.png", "odd]name.png"},
	}}}}}
	attachments := func(root string) []string {
		buf := renderJUnit(t, run, JUnitOptions{AttachmentsRoot: root})
		var got junit.Testsuites
		if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		tc := got.Suites[0].Testcases[0]
		if tc.SystemOut == nil {
			t.Fatal("no system-out")
		}
		return strings.Split(tc.SystemOut.Data, "\n")
	}
	gotAbs := attachments("")
	wantAbs := []string{"[[ATTACHMENT|" + filepath.ToSlash(filepath.Join(dir, "out/shot.png")) + "]]", "[[ATTACHMENT|/elsewhere/trace.zip]]"}
	if strings.Join(gotAbs, "\n") != strings.Join(wantAbs, "\n") {
		t.Errorf("no root: %q, want %q", gotAbs, wantAbs)
	}
	gotRel := attachments(".")
	wantRel := []string{"[[ATTACHMENT|out/shot.png]]", "[[ATTACHMENT|/elsewhere/trace.zip]]"}
	if strings.Join(gotRel, "\n") != strings.Join(wantRel, "\n") {
		t.Errorf("root .: %q, want %q", gotRel, wantRel)
	}
	gitlab := regexp.MustCompile(`\[\[ATTACHMENT\|(?P<path>[^\[\]\|]+?)\]\]`)
	for _, l := range append(gotAbs, gotRel...) {
		if m := gitlab.FindStringSubmatch(l); m == nil || "[[ATTACHMENT|"+m[1]+"]]" != l {
			t.Errorf("GitLab's pattern does not read %q back whole", l)
		}
	}
}
