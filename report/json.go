package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// SchemaVersion is the version of the JSON results format written by
// WriteJSON. It changes only when a field is removed or changes meaning;
// new fields are added without a bump, so readers must ignore fields they
// do not know. ReadJSON refuses a document with a higher version.
const SchemaVersion = 1

// JSONSchema is the JSON Schema (draft 2020-12) of the results format, also
// in report/results.schema.json. docs/reports.md documents every field.
//
//go:embed results.schema.json
var JSONSchema []byte

// The wire types are separate from the model so the documented format does
// not change by accident when the model does. Every field is always written
// (empty strings, empty lists, null for what was not observed), so a reader
// can rely on the keys.
type jsonRun struct {
	SchemaVersion int        `json:"schemaVersion"`
	Tool          string     `json:"tool"`
	Version       string     `json:"version"`
	StartedAt     string     `json:"startedAt"`
	DurationMs    float64    `json:"durationMs"`
	Expectations  string     `json:"baseline"`
	Summary       Tally      `json:"summary"`
	Judged        Judged     `json:"judged"`
	Hosts         []jsonHost `json:"hosts"`
}

// hostMeta is a host's metadata as the JSON results and the HTML page's
// data both carry it, in that order.
type hostMeta struct {
	Host         string  `json:"host"`
	HostName     string  `json:"hostName"`
	HostVersion  string  `json:"hostVersion"`
	Browser      string  `json:"browser"`
	Platform     string  `json:"platform"`
	SuiteVersion string  `json:"suiteVersion"`
	StartedAt    string  `json:"startedAt"`
	DurationMs   float64 `json:"durationMs"`
	Infra        string  `json:"infra"`
}

// hostMetaOf is h's metadata, each string through clean, with duration d.
func hostMetaOf(h HostRun, d time.Duration, clean func(string) string) hostMeta {
	return hostMeta{Host: clean(h.Host), HostName: clean(h.HostName), HostVersion: clean(h.HostVersion),
		Browser: clean(h.Browser), Platform: clean(h.Platform), SuiteVersion: clean(h.SuiteVersion),
		StartedAt: jsonTime(h.StartedAt), DurationMs: jsonMs(d), Infra: clean(h.Infra)}
}

type jsonHost struct {
	hostMeta
	HostInfo     json.RawMessage   `json:"hostInfo"`
	Capabilities json.RawMessage   `json:"capabilities"`
	Context      json.RawMessage   `json:"context"`
	Summary      Tally             `json:"summary"`
	Judged       Judged            `json:"judged"`
	Absent       []jsonExpectation `json:"absent"`
	Cases        []jsonCase        `json:"cases"`
	// Video is the host page's recording (run --video), absent without one.
	Video string `json:"video,omitempty"`
}

type jsonCase struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Clause  protocol.Clause  `json:"clause"`
	Edition protocol.Edition `json:"edition"`
	SpecRef string           `json:"specRef"`
	// Requirements are the register ids (internal/specreg) the check
	// judges.
	Requirements []string         `json:"requirements,omitempty"`
	Manual       bool             `json:"manual"`
	Vantage      protocol.Vantage `json:"vantage"`
	Needs        []protocol.Kind  `json:"needs"`
	Gesture      bool             `json:"gesture"`
	Requires     []string         `json:"requires,omitempty"`
	Status       protocol.Status  `json:"status"`
	Message      string           `json:"message"`
	BlockedBy    []string         `json:"blockedBy,omitempty"`
	DurationMs   float64          `json:"durationMs"`
	Evidence     []string         `json:"evidence"`
	Attempts     int              `json:"attempts,omitempty"`
	Flaky        bool             `json:"flaky,omitempty"`
	// StartedAtMs is where the check starts in its host's video, absent
	// without a video.
	StartedAtMs *float64         `json:"startedAtMs,omitempty"`
	ReasonCode  string           `json:"reasonCode"`
	Outcome     Outcome          `json:"outcome"`
	Expected    *jsonExpectation `json:"expected"`
}

type jsonExpectation struct {
	ID     string            `json:"id"`
	Reason string            `json:"reason"`
	Allow  []protocol.Status `json:"allow"`
	Line   int               `json:"line"`
}

// WriteJSON writes r as one JSON document in the versioned results format
// (SchemaVersion; documented in docs/reports.md, schema in JSONSchema).
// Text is written as the runner recorded it (JSON can hold any string);
// "summary", "judged", "outcome" and "reasonCode" are derived and ignored
// by ReadJSON.
func WriteJSON(w io.Writer, r Run) error {
	out := jsonRun{
		SchemaVersion: SchemaVersion,
		Tool:          r.Tool,
		Version:       r.Version,
		StartedAt:     jsonTime(r.StartedAt),
		DurationMs:    jsonMs(r.Duration),
		Expectations:  r.Expectations,
		Summary:       r.Tally(),
		Judged:        r.Judged(),
		Hosts:         []jsonHost{},
	}
	if out.Tool == "" {
		out.Tool = "mcpconform"
	}
	for _, h := range r.Hosts {
		jh := jsonHost{
			hostMeta: hostMetaOf(h, h.Duration, func(s string) string { return s }),
			HostInfo: jsonRaw(h.HostInfo), Capabilities: jsonRaw(h.Capabilities), Context: jsonRaw(h.Context),
			Summary: h.Tally(), Judged: h.Judged(), Absent: []jsonExpectation{}, Cases: []jsonCase{}, Video: h.Video,
		}
		for _, e := range h.Absent {
			jh.Absent = append(jh.Absent, *toJSONExpectation(&e))
		}
		for _, c := range h.Cases {
			jc := jsonCase{
				ID: c.ID, Name: c.Name, Clause: c.Clause, Edition: c.Edition, SpecRef: c.SpecRef, Requirements: c.Requirements,
				Manual: c.Manual, Vantage: c.Vantage, Needs: c.Needs, Gesture: c.Gesture, Requires: c.Requires,
				Status: c.Status, Message: c.Message, BlockedBy: c.BlockedBy, DurationMs: jsonMs(c.Duration),
				Evidence: c.Evidence, Attempts: c.Attempts, Flaky: c.Flaky, ReasonCode: c.ReasonCode(), Outcome: c.Outcome(),
				Expected: toJSONExpectation(c.Expect),
			}
			if jc.Needs == nil {
				jc.Needs = []protocol.Kind{}
			}
			if at, ok := h.VideoOffset(c); ok {
				v := jsonMs(at)
				jc.StartedAtMs = &v
			}
			if jc.Evidence == nil {
				jc.Evidence = []string{}
			}
			jh.Cases = append(jh.Cases, jc)
		}
		out.Hosts = append(out.Hosts, jh)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadJSON reads a document written by WriteJSON back into a Run, so a saved
// run can be converted to other formats without running it again. It
// rejects a document without a schemaVersion (not a results file) or with a
// newer one than this build knows, and ignores unknown fields.
func ReadJSON(rd io.Reader) (Run, error) {
	var run Run
	data, err := io.ReadAll(rd)
	if err != nil {
		return run, err
	}
	var head struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return run, fmt.Errorf("not a results file: %w", err)
	}
	switch {
	case head.SchemaVersion == nil:
		return run, errors.New("not a results file: no schemaVersion (write one with mcpconform run --json FILE)")
	case *head.SchemaVersion < 1 || *head.SchemaVersion > SchemaVersion:
		return run, fmt.Errorf("results schemaVersion %d is not supported: this mcpconform reads versions 1 to %d", *head.SchemaVersion, SchemaVersion)
	}
	var in jsonRun
	if err := json.Unmarshal(data, &in); err != nil {
		return run, fmt.Errorf("results file: %w", err)
	}
	run = Run{Tool: in.Tool, Version: in.Version, Duration: fromMs(in.DurationMs), Expectations: in.Expectations}
	if run.StartedAt, err = parseJSONTime(in.StartedAt); err != nil {
		return run, fmt.Errorf("results file: startedAt: %w", err)
	}
	for i, jh := range in.Hosts {
		h := HostRun{
			Host: jh.Host, HostName: jh.HostName, HostVersion: jh.HostVersion,
			Browser: jh.Browser, Platform: jh.Platform, SuiteVersion: jh.SuiteVersion,
			Duration: fromMs(jh.DurationMs), Infra: jh.Infra,
			HostInfo: fromRaw(jh.HostInfo), Capabilities: fromRaw(jh.Capabilities), Context: fromRaw(jh.Context),
			Video: jh.Video,
		}
		if h.StartedAt, err = parseJSONTime(jh.StartedAt); err != nil {
			return run, fmt.Errorf("results file: hosts[%d].startedAt: %w", i, err)
		}
		if h.Video != "" {
			// Only the offsets into the video are kept: the host's start
			// stands in for the video's.
			h.VideoStartedAt = h.StartedAt
			if h.VideoStartedAt.IsZero() {
				h.VideoStartedAt = time.Unix(0, 0).UTC()
			}
		}
		for _, e := range jh.Absent {
			h.Absent = append(h.Absent, *fromJSONExpectation(&e))
		}
		for j, jc := range jh.Cases {
			if jc.ID == "" || jc.Status == "" {
				return run, fmt.Errorf("results file: hosts[%d].cases[%d]: id and status are required", i, j)
			}
			h.Cases = append(h.Cases, Case{
				TestMeta: protocol.TestMeta{
					ID: jc.ID, Name: jc.Name, Clause: jc.Clause, Edition: jc.Edition, SpecRef: jc.SpecRef, Requirements: jc.Requirements,
					Manual: jc.Manual, Vantage: jc.Vantage, Needs: jc.Needs, Gesture: jc.Gesture, Requires: jc.Requires,
				},
				Status: jc.Status, Message: jc.Message, BlockedBy: jc.BlockedBy, Duration: fromMs(jc.DurationMs),
				Evidence: jc.Evidence, Attempts: jc.Attempts, Flaky: jc.Flaky, Expect: fromJSONExpectation(jc.Expected),
			})
			// Empty lists read back as nil, as the runner leaves them.
			c := &h.Cases[len(h.Cases)-1]
			if jc.StartedAtMs != nil && h.Video != "" {
				c.StartedAt = h.VideoStartedAt.Add(fromMs(*jc.StartedAtMs))
			}
			if len(c.Evidence) == 0 {
				c.Evidence = nil
			}
			if len(c.Needs) == 0 {
				c.Needs = nil
			}
		}
		run.Hosts = append(run.Hosts, h)
	}
	return run, nil
}

func toJSONExpectation(e *Expectation) *jsonExpectation {
	if e == nil {
		return nil
	}
	je := &jsonExpectation{ID: e.ID, Reason: e.Reason, Allow: e.Allow, Line: e.Line}
	if je.Allow == nil {
		je.Allow = []protocol.Status{}
	}
	return je
}

func fromJSONExpectation(je *jsonExpectation) *Expectation {
	if je == nil {
		return nil
	}
	e := &Expectation{ID: je.ID, Reason: je.Reason, Line: je.Line}
	if len(je.Allow) > 0 {
		e.Allow = je.Allow
	}
	return e
}

// jsonTime is RFC 3339 with nanoseconds in UTC, or "" for the zero time.
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func parseJSONTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// jsonMs is a duration in milliseconds; fractions keep the nanoseconds, and
// fromMs gives back the exact duration for any run shorter than 100 days.
func jsonMs(d time.Duration) float64 { return float64(max(d, 0)) / float64(time.Millisecond) }

func fromMs(ms float64) time.Duration {
	if ms <= 0 || math.IsNaN(ms) {
		return 0
	}
	if ms >= float64(math.MaxInt64/int64(time.Millisecond)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// jsonRaw passes through what the host sent when it is valid JSON. Anything
// else is kept as a JSON string, so one odd value cannot make the report
// unwritable; null means not observed.
func jsonRaw(m json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(m)) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(m) {
		return m
	}
	s, _ := json.Marshal(string(m))
	return s
}

func fromRaw(m json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(m); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return append(json.RawMessage(nil), m...)
}
