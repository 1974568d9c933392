package report

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestJSONRoundTrip: what ReadJSON gives back renders every other format
// byte for byte as the original run does, which is what `mcpconform report
// --from` relies on.
func TestJSONRoundTrip(t *testing.T) {
	for name, run := range map[string]Run{"full": fullRun(), "one host": oneHostRun(), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			buf := render(t, WriteJSON, run)
			back, err := ReadJSON(buf)
			if err != nil {
				t.Fatal(err)
			}
			for format, write := range map[string]func(*bytes.Buffer, Run) error{
				"junit":    func(b *bytes.Buffer, r Run) error { return WriteJUnit(b, r, JUnitOptions{}) },
				"tap":      func(b *bytes.Buffer, r Run) error { return WriteTAP(b, r) },
				"markdown": func(b *bytes.Buffer, r Run) error { return WriteMarkdown(b, r) },
				"json":     func(b *bytes.Buffer, r Run) error { return WriteJSON(b, r) },
			} {
				var a, b bytes.Buffer
				if err := write(&a, run); err != nil {
					t.Fatal(err)
				}
				if err := write(&b, back); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("%s differs after a JSON round trip:\n--- original ---\n%s\n--- read back ---\n%s", format, a.Bytes(), b.Bytes())
				}
			}
			if len(run.Hosts) == 0 {
				return
			}
			h, bh := run.Hosts[0], back.Hosts[0]
			for name, pair := range map[string][2]json.RawMessage{
				"hostInfo": {h.HostInfo, bh.HostInfo}, "capabilities": {h.Capabilities, bh.Capabilities}, "context": {h.Context, bh.Context},
			} {
				var x, y any
				json.Unmarshal(pair[0], &x)
				json.Unmarshal(pair[1], &y)
				if !reflect.DeepEqual(x, y) {
					t.Errorf("%s: %s, read back %s", name, pair[0], pair[1])
				}
			}
			if !back.StartedAt.Equal(run.StartedAt) || back.Duration != run.Duration || back.Expectations != run.Expectations {
				t.Errorf("run metadata %v %v %q, want %v %v %q", back.StartedAt, back.Duration, back.Expectations, run.StartedAt, run.Duration, run.Expectations)
			}
			for i, c := range h.Cases {
				bc := bh.Cases[i]
				if bc.Duration != c.Duration || bc.Message != c.Message || !reflect.DeepEqual(bc.Evidence, c.Evidence) || !reflect.DeepEqual(bc.Expect, c.Expect) {
					t.Errorf("case %s: %+v, read back %+v", c.ID, c, bc)
				}
			}
		})
	}
}

// TestJSONHasEveryField checks the per-check and per-host fields the issue
// names are in the document.
func TestJSONHasEveryField(t *testing.T) {
	buf := render(t, WriteJSON, fullRun())
	var doc struct {
		SchemaVersion int `json:"schemaVersion"`
		Hosts         []struct {
			HostInfo     map[string]any   `json:"hostInfo"`
			Capabilities map[string]any   `json:"capabilities"`
			Context      map[string]any   `json:"context"`
			Cases        []map[string]any `json:"cases"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != SchemaVersion {
		t.Errorf("schemaVersion %d", doc.SchemaVersion)
	}
	h := doc.Hosts[0]
	if h.HostInfo["name"] != "mcp-reference-host" || h.Capabilities["openLinks"] == nil || h.Context["theme"] != "light" {
		t.Errorf("host fields: %v %v %v", h.HostInfo, h.Capabilities, h.Context)
	}
	for _, k := range []string{"id", "status", "clause", "edition", "specRef", "message", "durationMs", "evidence", "outcome", "reasonCode", "expected"} {
		if _, ok := h.Cases[1][k]; !ok {
			t.Errorf("case lacks %q: %v", k, h.Cases[1])
		}
	}
	if ev := h.Cases[1]["evidence"].([]any); len(ev) != 2 {
		t.Errorf("evidence %v", ev)
	}
}

// TestJSONMatchesSchema validates the golden document against the published
// JSON Schema, so the schema and the writer cannot drift apart.
func TestJSONMatchesSchema(t *testing.T) {
	onDisk, err := os.ReadFile("results.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, JSONSchema) {
		t.Fatal("embedded schema differs from results.schema.json")
	}
	for name, run := range map[string]Run{"full": fullRun(), "empty": {}} {
		if err := validateResults(t, render(t, WriteJSON, run).Bytes()); err != nil {
			t.Errorf("%s: does not match the schema: %v", name, err)
		}
	}
	// The schema really constrains: a wrong status is rejected.
	var buf bytes.Buffer
	WriteJSON(&buf, oneHostRun())
	bad := strings.Replace(buf.String(), `"status": "PASS"`, `"status": "GREEN"`, 1)
	if validateResults(t, []byte(bad)) == nil {
		t.Error("schema accepts status GREEN")
	}
	// The judged counts are checked where present, and optional, as a
	// document written before them lacks them.
	if !strings.Contains(buf.String(), `"selected": 10`) {
		t.Fatalf("no judged counts in %s", buf.String())
	}
	if validateResults(t, []byte(strings.Replace(buf.String(), `"selected": 10`, `"selected": -10`, 1))) == nil {
		t.Error("schema accepts a negative judged.selected")
	}
	var old map[string]any
	json.Unmarshal(buf.Bytes(), &old)
	delete(old, "judged")
	for _, h := range old["hosts"].([]any) {
		delete(h.(map[string]any), "judged")
	}
	before, _ := json.Marshal(old)
	if err := validateResults(t, before); err != nil {
		t.Errorf("a document without judged counts is refused: %v", err)
	}
}

// validateResults validates a results document against JSONSchema; a
// schema that does not resolve or a document that is not JSON fails the
// test.
func validateResults(t *testing.T, doc []byte) error {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(JSONSchema, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	if err := json.Unmarshal(doc, &inst); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(inst)
}

func TestReadJSONRejects(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"not json":        {`<xml/>`, "not a results file"},
		"no version":      {`{"hosts": []}`, "no schemaVersion"},
		"newer version":   {`{"schemaVersion": 2, "hosts": []}`, "schemaVersion 2 is not supported"},
		"zero version":    {`{"schemaVersion": 0}`, "schemaVersion 0 is not supported"},
		"case without id": {`{"schemaVersion": 1, "hosts": [{"host": "h", "cases": [{"status": "PASS"}]}]}`, "hosts[0].cases[0]: id and status are required"},
		"bad time":        {`{"schemaVersion": 1, "startedAt": "yesterday"}`, "startedAt"},
		"wrong type":      {`{"schemaVersion": 1, "hosts": {}}`, "results file"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Unknown fields are ignored (forward compatible within a version).
	run, err := ReadJSON(strings.NewReader(`{"schemaVersion": 1, "future": true, "hosts": [{"host": "h", "new": 1, "cases": [{"id": "a/b", "status": "PASS", "durationMs": 1.5}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if run.Hosts[0].Cases[0].Duration != 1500*time.Microsecond {
		t.Errorf("duration %v", run.Hosts[0].Cases[0].Duration)
	}
}

// TestJSONKeepsInvalidRawAsString: a host value that is not JSON must not
// make the report unwritable.
func TestJSONKeepsInvalidRawAsString(t *testing.T) {
	run := Run{Hosts: []HostRun{{Host: "h", HostInfo: json.RawMessage(`{broken`)}}}
	buf := render(t, WriteJSON, run)
	if !strings.Contains(buf.String(), `"hostInfo": "{broken"`) {
		t.Errorf("hostInfo not kept as a string:\n%s", buf.String())
	}
}
