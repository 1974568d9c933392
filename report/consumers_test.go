package report

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/npmcache"
)

// These tests feed the golden reports to parsers that CI tools use, from
// npm, and check that what they read back (counts, names, messages,
// directives, diagnostics, attachments, properties) is what the model says.
// The packages are pinned. .ci/run installs them into .cache/consumers;
// elsewhere the test installs each on first use into the npm cache of
// internal/npmcache (~/.cache/mcpconform/npm/<name>@<version>), and skips,
// naming the package, where npm or the registry is missing (a failure with
// MCPCONFORM_REQUIRE_BROWSER=1 or CI=true).
var consumerSpecs = []string{
	"tap-parser@18.3.4",         // TAP 14, by the author of node-tap
	"junit2json@4.0.0",          // JUnit XML structure (xml2js, as dorny/test-reporter uses)
	"test-results-parser@0.4.6", // JUnit counts and statuses as a reporting tool computes them
}

// consumers returns the node binary and the node_modules directories that
// hold the parsers (separated as in PATH, as parse.mjs takes them). A
// directory named by MCPCONFORM_CONSUMERS_MODULES, then .cache/consumers
// at the repository root, is used where it holds a pinned package.
func consumers(t *testing.T) (node, modules string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the third-party parsers in Node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "third-party parsers unavailable: no node on PATH (install Node.js >= 20) to run " + strings.Join(consumerSpecs, ", ")
		if npmcache.Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var prefer []string
	if m := os.Getenv("MCPCONFORM_CONSUMERS_MODULES"); m != "" {
		prefer = append(prefer, filepath.Dir(m)) // the prefix of that node_modules
	}
	if root, err := filepath.Abs(filepath.Join("..", ".cache", "consumers")); err == nil {
		prefer = append(prefer, root)
	}
	var dirs []string
	for _, spec := range consumerSpecs {
		m := npmcache.Modules(npmcache.ForTest(t, spec, prefer...))
		if !slices.Contains(dirs, m) {
			dirs = append(dirs, m)
		}
	}
	return node, strings.Join(dirs, string(os.PathListSeparator))
}

// parseWith runs testdata/consumers/parse.mjs on a golden file.
func parseWith(t *testing.T, kind, goldenName string, into any) {
	t.Helper()
	node, modules := consumers(t)
	cmd := exec.Command(node, filepath.Join("testdata", "consumers", "parse.mjs"), modules, kind,
		filepath.Join("testdata", goldenName+".golden"))
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("parse.mjs %s %s: %v\n%s", kind, goldenName, err, stderr)
	}
	if err := json.Unmarshal(out, into); err != nil {
		t.Fatalf("parse.mjs output: %v\n%s", err, out)
	}
}

type tapPointRead struct {
	ID   int            `json:"id"`
	OK   bool           `json:"ok"`
	Name string         `json:"name"`
	Todo any            `json:"todo"` // false, or the directive's reason
	Skip any            `json:"skip"`
	Diag map[string]any `json:"diag"`
	Time *float64       `json:"time"`
}

type tapStreamRead struct {
	Name     string          `json:"name"`
	Asserts  []tapPointRead  `json:"asserts"`
	Children []tapStreamRead `json:"children"`
	Results  struct {
		OK       bool `json:"ok"`
		Count    int  `json:"count"`
		Pass     int  `json:"pass"`
		Fail     int  `json:"fail"`
		Todo     int  `json:"todo"`
		Skip     int  `json:"skip"`
		Plan     struct{ Start, End int }
		Failures []struct {
			Name     string `json:"name"`
			TapError any    `json:"tapError"`
		} `json:"failures"`
	} `json:"results"`
}

func TestTAPConsumers(t *testing.T) {
	for golden, run := range map[string]Run{
		"tap_one_host":    oneHostRun(),
		"tap_two_hosts":   twoHostRun(),
		"tap_baseline":    baselinedRun(),
		"tap_three_hosts": fullRun(),
	} {
		t.Run(golden, func(t *testing.T) {
			var got tapStreamRead
			parseWith(t, "tap", golden, &got)
			if len(run.Hosts) == 1 {
				checkTAPStream(t, run.Hosts[0], got)
				return
			}
			allOK := true
			if len(got.Asserts) != len(run.Hosts) || len(got.Children) != len(run.Hosts) {
				t.Fatalf("%d points and %d subtests for %d hosts", len(got.Asserts), len(got.Children), len(run.Hosts))
			}
			for i, h := range run.Hosts {
				ok := h.Tally().Failed == 0
				allOK = allOK && ok
				if p := got.Asserts[i]; p.Name != h.Host || p.OK != ok {
					t.Errorf("subtest point %d: %q ok=%v, want %q ok=%v", i+1, p.Name, p.OK, h.Host, ok)
				}
				if got.Children[i].Name != h.Host {
					t.Errorf("subtest %d named %q, want %q", i+1, got.Children[i].Name, h.Host)
				}
				t.Run(h.Host, func(t *testing.T) { checkTAPStream(t, h, got.Children[i]) })
			}
			if got.Results.OK != allOK || got.Results.Count != len(run.Hosts) {
				t.Errorf("parent: ok=%v count=%d, want ok=%v count=%d", got.Results.OK, got.Results.Count, allOK, len(run.Hosts))
			}
		})
	}
}

// checkTAPStream compares what tap-parser read from one host's stream with
// the host's cases. tap-parser counts "not ok # TODO" in fail and todo but
// not in failures, and "ok # SKIP" and "ok # TODO" in pass.
func checkTAPStream(t *testing.T, h HostRun, got tapStreamRead) {
	t.Helper()
	tl := h.Tally()
	r := got.Results
	notOK := tl.Failed + tl.ExpectedFail + tl.Flaky
	if r.Count != len(h.Cases) || r.Plan.End != len(h.Cases) || r.Fail != notOK ||
		r.Todo != tl.ExpectedFail+tl.Flaky+tl.Stale+tl.Optional || r.Skip != tl.Skipped || r.Pass != tl.Passed+tl.Stale+tl.Skipped+tl.Optional {
		t.Errorf("tap-parser read count=%d plan=%d fail=%d todo=%d skip=%d pass=%d; want %d/%d/%d/%d/%d/%d (tally %+v)",
			r.Count, r.Plan.End, r.Fail, r.Todo, r.Skip, r.Pass,
			len(h.Cases), len(h.Cases), notOK, tl.ExpectedFail+tl.Flaky+tl.Stale+tl.Optional, tl.Skipped, tl.Passed+tl.Stale+tl.Skipped+tl.Optional, tl)
	}
	if r.OK != (tl.Failed == 0) {
		t.Errorf("tap-parser ok=%v, want %v", r.OK, tl.Failed == 0)
	}
	var wantFailures, gotFailures []string
	for _, c := range h.Cases {
		if c.Outcome() == OutcomeFail {
			wantFailures = append(wantFailures, c.ID)
		}
	}
	for _, f := range r.Failures {
		if f.TapError != nil {
			t.Errorf("tap-parser reported a TAP error: %v", f.TapError)
		}
		gotFailures = append(gotFailures, f.Name)
	}
	if !reflect.DeepEqual(gotFailures, wantFailures) {
		t.Errorf("failures %v, want %v", gotFailures, wantFailures)
	}
	if len(got.Asserts) != len(h.Cases) {
		t.Fatalf("%d points, want %d", len(got.Asserts), len(h.Cases))
	}
	for i, c := range h.Cases {
		p := got.Asserts[i]
		o := c.Outcome()
		why := reason(h, c)
		if c.Status == "NOTRUN" {
			why = notRun(why)
		}
		wantOK := o == OutcomePass || o == OutcomeSkipped || o == OutcomeStale || o == OutcomeOptional
		var wantTodo, wantSkip any = false, false
		switch o {
		case OutcomeExpectedFail:
			wantTodo = "baseline: " + baselineReason(c, "expected failure")
		case OutcomeFlaky:
			wantTodo = "flaky, baseline allows " + allowList(c.Expect) + ": " + baselineReason(c, "known flaky check")
		case OutcomeStale:
			wantTodo = "stale baseline entry: " + baselineReason(c, "expected failure")
			why = "passed, but the baseline expects it to fail: remove the entry"
		case OutcomeSkipped:
			wantSkip = oneLine(why)
		case OutcomeOptional:
			why = optional(why)
			wantTodo = oneLine(why)
		}
		if p.ID != i+1 || p.Name != c.ID || p.OK != wantOK || p.Todo != wantTodo || p.Skip != wantSkip {
			t.Errorf("point %d read as id=%d name=%q ok=%v todo=%v skip=%v; want %q ok=%v todo=%v skip=%v",
				i+1, p.ID, p.Name, p.OK, p.Todo, p.Skip, c.ID, wantOK, wantTodo, wantSkip)
		}
		if o == OutcomePass {
			if p.Diag != nil {
				t.Errorf("%s: a passing point has diagnostics %v", c.ID, p.Diag)
			}
			continue
		}
		want := map[string]any{"message": why, "status": string(c.Status), "clause": string(c.Clause),
			"edition": string(c.Edition), "spec_ref": c.SpecRef}
		for k, v := range want {
			if p.Diag[k] != v {
				t.Errorf("%s: diag %s = %#v, want %#v", c.ID, k, p.Diag[k], v)
			}
		}
		if p.Time == nil || *p.Time != float64(c.Duration.Milliseconds()) {
			t.Errorf("%s: time %v, want %d", c.ID, p.Time, c.Duration.Milliseconds())
		}
		var ev []string
		if l, ok := p.Diag["evidence"].([]any); ok {
			for _, e := range l {
				ev = append(ev, e.(string))
			}
		}
		if !reflect.DeepEqual(ev, c.Evidence) {
			t.Errorf("%s: evidence %v, want %v", c.ID, ev, c.Evidence)
		}
	}
}

type junitResultRead struct {
	Inner   string `json:"inner"`
	Message string `json:"message"`
	Type    string `json:"type"`
}

// junitCountsRead is what junit2json reads from both <testsuites> and
// <testsuite>: the name, the counts and the time.
type junitCountsRead struct {
	Name     string  `json:"name"`
	Tests    int     `json:"tests"`
	Failures int     `json:"failures"`
	Errors   int     `json:"errors"`
	Skipped  int     `json:"skipped"`
	Time     float64 `json:"time"`
}

// propString is a property value as a consumer read it (a string, a
// number, or null for an empty one) back as the text in the XML.
func propString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

type junitRead struct {
	JUnit2JSON struct {
		junitCountsRead
		Testsuite []struct {
			junitCountsRead
			Timestamp string `json:"timestamp"`
			// Values are any: both tools read a numeric property
			// (checks.judged) as a number.
			Properties []struct {
				Name  string
				Value any
			}
			SystemErr []string `json:"system-err"`
			Testcase  []struct {
				Name      string            `json:"name"`
				Classname string            `json:"classname"`
				Time      *float64          `json:"time"`
				Failure   []junitResultRead `json:"failure"`
				Error     []junitResultRead `json:"error"`
				Skipped   []junitResultRead `json:"skipped"`
				SystemOut []string          `json:"system-out"`
			} `json:"testcase"`
		} `json:"testsuite"`
	} `json:"junit2json"`
	TRP struct {
		Suites []struct {
			Name                                   string
			Total, Passed, Failed, Errors, Skipped int
			Metadata                               map[string]any
			Cases                                  []struct {
				Name        string
				Status      string
				Failure     string
				Duration    float64
				Attachments []string
			}
		} `json:"suites"`
	} `json:"testResultsParser"`
}

func TestJUnitConsumers(t *testing.T) {
	for golden, c := range map[string]struct {
		run  Run
		root string
	}{
		"junit":          {twoHostRun(), ""},
		"junit_baseline": {fullRun(), ""},
		"junit_gitlab":   {baselinedRun(), "/ci/project"},
	} {
		t.Run(golden, func(t *testing.T) {
			var got junitRead
			parseWith(t, "junit", golden, &got)
			checkJUnitConsumers(t, c.run, c.root, got)
		})
	}
}

func checkJUnitConsumers(t *testing.T, run Run, root string, got junitRead) {
	j := got.JUnit2JSON
	if j.Name != junitRoot || len(j.Testsuite) != len(run.Hosts) || len(got.TRP.Suites) != len(run.Hosts) {
		t.Fatalf("junit2json: name %q, %d suites; test-results-parser: %d suites; want %d", j.Name, len(j.Testsuite), len(got.TRP.Suites), len(run.Hosts))
	}
	att := attacher{root: root}
	var tests, failures, errs, skipped int
	for i, h := range run.Hosts {
		s, ts := j.Testsuite[i], got.TRP.Suites[i]
		var f, e, sk, pass int
		for _, c := range h.Cases {
			switch junitWant(c) {
			case "failure":
				f++
			case "error":
				e++
			case "skipped":
				sk++
			default:
				pass++
			}
		}
		tests, failures, errs, skipped = tests+len(h.Cases), failures+f, errs+e, skipped+sk
		if s.Name != "mcpconform/"+h.Host || s.Tests != len(h.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			t.Errorf("junit2json suite %q: tests/failures/errors/skipped %d/%d/%d/%d, want %d/%d/%d/%d",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(h.Cases), f, e, sk)
		}
		if s.Time != hostDuration(h).Seconds() || s.Timestamp != h.StartedAt.UTC().Format(time.RFC3339) {
			t.Errorf("suite %s: time %v timestamp %q", h.Host, s.Time, s.Timestamp)
		}
		// A reporting tool's pass count is tests minus skipped, failed and
		// errored: skips (unsupported capabilities, expected failures) are
		// never passes.
		if ts.Passed != pass || ts.Skipped != sk || ts.Failed != f || ts.Errors != e || pass != h.Tally().Passed {
			t.Errorf("test-results-parser suite %s: passed/failed/errors/skipped %d/%d/%d/%d, want %d/%d/%d/%d",
				h.Host, ts.Passed, ts.Failed, ts.Errors, ts.Skipped, pass, f, e, sk)
		}
		props := map[string]string{}
		for _, p := range s.Properties {
			props[p.Name] = propString(p.Value)
		}
		j := h.Judged()
		for k, v := range map[string]string{"host": h.Host, "host.version": h.HostVersion, "platform": h.Platform,
			"browser": h.Browser, "suite.version": h.SuiteVersion, "date": h.StartedAt.UTC().Format(time.RFC3339),
			"checks.selected": strconv.Itoa(j.Selected), "checks.judged": strconv.Itoa(j.Judged), "judged": j.String()} {
			if props[k] != v || propString(ts.Metadata[k]) != v {
				t.Errorf("suite %s: property %s read as %q and %q, want %q", h.Host, k, props[k], ts.Metadata[k], v)
			}
		}
		if (h.Infra != "") != (len(s.SystemErr) == 1) {
			t.Errorf("suite %s: system-err %q, infra %q", h.Host, s.SystemErr, h.Infra)
		}
		if len(s.Testcase) != len(h.Cases) || len(ts.Cases) != len(h.Cases) {
			t.Fatalf("suite %s: %d and %d testcases, want %d", h.Host, len(s.Testcase), len(ts.Cases), len(h.Cases))
		}
		for k, c := range h.Cases {
			tc, tr := s.Testcase[k], ts.Cases[k]
			want := junitCase(sanitize(h.Host), h, c, att)
			if tc.Name != want.Name || tc.Classname != want.Classname || tc.Time == nil || *tc.Time != c.Duration.Seconds() {
				t.Errorf("%s: read name %q classname %q time %v, want %q %q %v", c.ID, tc.Name, tc.Classname, tc.Time, want.Name, want.Classname, c.Duration.Seconds())
			}
			var read []junitResultRead
			var kind string
			switch {
			case len(tc.Failure) > 0:
				kind, read = "failure", tc.Failure
			case len(tc.Error) > 0:
				kind, read = "error", tc.Error
			case len(tc.Skipped) > 0:
				kind, read = "skipped", tc.Skipped
			}
			if kind != junitWant(c) {
				t.Errorf("%s (%s): junit2json read <%s>, want <%s>", c.ID, c.Outcome(), kind, junitWant(c))
			}
			wantStatus := map[string]string{"": "PASS", "skipped": "SKIP", "failure": "FAIL", "error": "FAIL"}[junitWant(c)]
			if tr.Status != wantStatus {
				t.Errorf("%s: test-results-parser status %s, want %s", c.ID, tr.Status, wantStatus)
			}
			var wr *junitResultRead
			switch {
			case want.Failure != nil:
				wr = &junitResultRead{want.Failure.Data, want.Failure.Message, want.Failure.Type}
			case want.Error != nil:
				wr = &junitResultRead{want.Error.Data, want.Error.Message, want.Error.Type}
			case want.Skipped != nil:
				wr = &junitResultRead{want.Skipped.Data, want.Skipped.Message, want.Skipped.Type}
			}
			if wr != nil && len(read) == 1 {
				if read[0] != *wr {
					t.Errorf("%s: junit2json read %+v, want %+v", c.ID, read[0], *wr)
				}
				if !strings.HasPrefix(oneLine(read[0].Inner), read[0].Message) || read[0].Message == "" {
					t.Errorf("%s: element text does not start with the message: %+v", c.ID, read[0])
				}
				if c.Clause != "" && !strings.Contains(read[0].Inner, "clause: "+string(c.Clause)) {
					t.Errorf("%s: element text lacks the clause: %q", c.ID, read[0].Inner)
				}
				if wantStatus == "FAIL" && tr.Failure != wr.Message {
					t.Errorf("%s: test-results-parser failure %q, want %q", c.ID, tr.Failure, wr.Message)
				}
			}
			var wantAtt []string
			for _, e := range c.Evidence {
				p := e
				if root != "" {
					p = strings.TrimPrefix(strings.TrimPrefix(e, root), "/")
				}
				wantAtt = append(wantAtt, p)
			}
			if tr.Attachments == nil {
				tr.Attachments = []string{}
			}
			if wantAtt == nil {
				wantAtt = []string{}
			}
			if !reflect.DeepEqual(tr.Attachments, wantAtt) {
				t.Errorf("%s: attachments read %v, want %v", c.ID, tr.Attachments, wantAtt)
			}
		}
	}
	if j.Tests != tests || j.Failures != failures || j.Errors != errs || j.Skipped != skipped {
		t.Errorf("testsuites: %d/%d/%d/%d, want %d/%d/%d/%d", j.Tests, j.Failures, j.Errors, j.Skipped, tests, failures, errs, skipped)
	}
}
