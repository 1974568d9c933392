package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// Judged counts PASS and FAIL as judged, SKIP, NOTRUN and OPTIONAL as not
// judged, and TIMEOUT, ERROR and unknown statuses apart, before any
// baseline.
func TestJudgedCounts(t *testing.T) {
	var cases []Case
	add := func(s protocol.Status, n int) {
		for range n {
			cases = append(cases, Case{Status: s})
		}
	}
	add(protocol.StatusPass, 47)
	add(protocol.StatusFail, 2)
	add(protocol.StatusSkip, 15)
	add(protocol.StatusOptional, 2)
	j := JudgedOf(cases)
	if got, want := j.String(), "judged 49 of 66 (PASS 47, FAIL 2); 17 not judged: SKIP 15, OPTIONAL 2"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}

	add(protocol.StatusNotRun, 1)
	add(protocol.StatusTimeout, 2)
	add(protocol.StatusError, 1)
	add("WEIRD", 1)
	// An expected failure is still a judged FAIL.
	cases = append(cases, Case{Status: protocol.StatusFail, Expect: &Expectation{ID: "x"}})
	j = JudgedOf(cases)
	want := Judged{Selected: 72, Judged: 50, Pass: 47, Fail: 3, NotJudged: 18, Skip: 15, NotRun: 1, Optional: 2, NoVerdict: 4, Timeout: 2, Error: 2}
	if j != want {
		t.Errorf("JudgedOf = %+v, want %+v", j, want)
	}
	if j.Selected != j.Judged+j.NotJudged+j.NoVerdict {
		t.Errorf("groups do not add up: %+v", j)
	}
	if got, want := j.String(), "judged 50 of 72 (PASS 47, FAIL 3); 18 not judged: SKIP 15, NOTRUN 1, OPTIONAL 2; 4 without a verdict: TIMEOUT 2, ERROR 2"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := (Judged{}).String(), "judged 0 of 0 (PASS 0, FAIL 0)"; got != want {
		t.Errorf("empty: %q, want %q", got, want)
	}

	r := Run{Hosts: []HostRun{{Cases: cases[:10]}, {Cases: cases[10:]}}}
	if r.Judged() != j || r.Hosts[0].Judged() != JudgedOf(cases[:10]) {
		t.Errorf("Run.Judged %+v, HostRun.Judged %+v", r.Judged(), r.Hosts[0].Judged())
	}
}

// Every format says, per host, how many checks were judged of how many
// were selected, from the one count.
func TestEveryFormatShowsJudged(t *testing.T) {
	run := fullRun()
	tail := func(j Judged) string {
		return strings.TrimPrefix(j.String(), fmt.Sprintf("judged %d of %d", j.Judged, j.Selected))
	}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := f.Write(&b, run, Options{}); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out := b.String()
		if f.Name == "json" {
			var doc struct {
				Judged Judged
				Hosts  []struct{ Judged Judged }
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Judged != run.Judged() || len(doc.Hosts) != len(run.Hosts) {
				t.Errorf("json: judged %+v, want %+v", doc.Judged, run.Judged())
			}
			for i, h := range doc.Hosts {
				if h.Judged != run.Hosts[i].Judged() {
					t.Errorf("json host %d: judged %+v, want %+v", i, h.Judged, run.Hosts[i].Judged())
				}
			}
			continue
		}
		for _, h := range run.Hosts {
			j := h.Judged()
			if f.Name == "markdown" {
				if !strings.Contains(out, fmt.Sprintf("**Judged %d of %d**", j.Judged, j.Selected)+tail(j)) {
					t.Errorf("markdown lacks %q", j)
				}
				continue
			}
			if !strings.Contains(out, j.String()) {
				t.Errorf("%s lacks %q", f.Name, j)
			}
		}
	}
	var b bytes.Buffer
	NewConsole(&b, false).Summary(run)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if n := len(lines); n < 2 || lines[n-2] != run.Judged().String() || lines[n-1] != run.Tally().String() {
		t.Errorf("console summary does not end with the judged and tally lines:\n%s", b.String())
	}
	for _, h := range run.Hosts {
		if !strings.Contains(b.String(), "JUDGED "+h.Host+": "+h.Judged().String()+"\n") {
			t.Errorf("console lacks host %s's judged line:\n%s", h.Host, b.String())
		}
	}
}
