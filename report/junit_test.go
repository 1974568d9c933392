package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode"

	"github.com/jstemmer/go-junit-report/v2/junit"
)

func TestJUnitGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, twoHostRun(), JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "junit", buf.Bytes())
}

// TestJUnitParses reads the report back as a consumer would and checks the
// rules the CI tools depend on.
func TestJUnitParses(t *testing.T) {
	run := twoHostRun()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, run, JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
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
	var all Counts
	for i, h := range run.Hosts {
		s := got.Suites[i]
		c := h.Count()
		for _, cs := range h.Cases {
			all.Add(cs.Status)
		}
		if s.Name != "mcpconform/"+h.Host || s.Time == "" {
			t.Errorf("suite %d: name %q time %q", i, s.Name, s.Time)
		}
		if s.Tests != c.Total() || s.Failures != c.Failed+c.TimedOut || s.Errors != c.Errored || s.Skipped != c.Skipped+c.NotRun {
			t.Errorf("suite %s: tests/failures/errors/skipped = %d/%d/%d/%d, want %d/%d/%d/%d", h.Host,
				s.Tests, s.Failures, s.Errors, s.Skipped, c.Total(), c.Failed+c.TimedOut, c.Errored, c.Skipped+c.NotRun)
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

		seen := map[[2]string]bool{}
		for j, tc := range s.Testcases {
			if tc.Name == "" || tc.Time == "" {
				t.Errorf("%s case %d: name %q time %q", h.Host, j, tc.Name, tc.Time)
			}
			key := [2]string{tc.Classname, tc.Name}
			if seen[key] {
				t.Errorf("duplicate (classname, name) %v", key)
			}
			seen[key] = true
			want := h.Host + "." + h.Cases[j].Area()
			if tc.Classname != want {
				t.Errorf("classname %q, want %q", tc.Classname, want)
			}
			for _, r := range []*junit.Result{tc.Failure, tc.Error, tc.Skipped} {
				if r == nil {
					continue
				}
				if !strings.HasPrefix(r.Data, r.Message) {
					t.Errorf("%s %s: element text %q does not start with message %q", h.Host, tc.Name, r.Data, r.Message)
				}
				if !strings.Contains(r.Data, "\nid: "+h.Cases[j].ID) {
					t.Errorf("%s %s: element text lacks the id line: %q", h.Host, tc.Name, r.Data)
				}
			}
		}
	}
	if got.Tests != all.Total() || got.Failures != all.Failed+all.TimedOut || got.Errors != all.Errored || got.Skipped != all.Skipped+all.NotRun {
		t.Errorf("testsuites counts %d/%d/%d/%d", got.Tests, got.Failures, got.Errors, got.Skipped)
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
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, oneHostRun(), JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
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
			"ERROR": {"error", "ERROR"}, "SKIP": {"skipped", ""}, "NOTRUN": {"skipped", ""},
		}[string(c.Status)]
		if kind != want[0] || typ != want[1] {
			t.Errorf("%s (%s): got <%s type=%q>, want <%s type=%q>", c.ID, c.Status, kind, typ, want[0], want[1])
		}
		if string(c.Status) == "NOTRUN" && !strings.HasPrefix(msg, "not run: ") {
			t.Errorf("%s: NOTRUN message %q", c.ID, msg)
		}
	}
}
