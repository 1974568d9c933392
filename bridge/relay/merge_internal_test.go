package relay

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

func results(ids ...string) []protocol.TestResult {
	var out []protocol.TestResult
	for _, id := range ids {
		out = append(out, protocol.TestResult{ID: id, Status: protocol.StatusPass})
	}
	return out
}

func ids(p protocol.Poll) []string {
	var out []string
	for _, r := range p.Results {
		out = append(out, r.ID)
	}
	return out
}

// The View sends only the results the runner lacks; the bridge puts the
// whole list back together, starts again on a new instance or start
// generation, and refuses a delta that does not continue what it has.
func TestMergeRebuildsTheResults(t *testing.T) {
	b := &Bridge{}
	args := b.pollArgs(map[string]any{})
	if args["since"] != 0 || args["facts"] != true {
		t.Fatalf("first poll's arguments %v", args)
	}
	facts := json.RawMessage(`{"name":"h"}`)
	p, err := b.merge(relayPoll{Poll: protocol.Poll{Instance: "i1", Results: results("a/one"), HostInfo: facts}, ResultsFrom: 0, Generation: 1})
	if err != nil || len(p.Results) != 1 || string(p.HostInfo) != string(facts) {
		t.Fatalf("first merge: %v %+v", err, p)
	}
	args = b.pollArgs(map[string]any{})
	if args["since"] != 1 || args["instance"] != "i1" || args["generation"] != 1 || args["facts"] != false {
		t.Fatalf("second poll's arguments %v", args)
	}
	// A delta without the facts keeps the ones the bridge has.
	p, err = b.merge(relayPoll{Poll: protocol.Poll{Instance: "i1", Results: results("a/two", "a/three")}, ResultsFrom: 1, Generation: 1})
	if err != nil || len(ids(p)) != 3 || ids(p)[2] != "a/three" || string(p.HostInfo) != string(facts) {
		t.Fatalf("delta: %v %v %s", err, ids(p), p.HostInfo)
	}
	// The caller may keep the Poll: it is a copy.
	p.Results[0].ID = "changed"
	if q, _ := b.merge(relayPoll{Poll: protocol.Poll{Instance: "i1"}, ResultsFrom: 3, Generation: 1}); q.Results[0].ID != "a/one" {
		t.Fatal("a returned Poll shares the bridge's results")
	}
	for _, bad := range []relayPoll{
		{Poll: protocol.Poll{Instance: "i1", Results: results("x")}, ResultsFrom: 2, Generation: 1}, // a gap
		{Poll: protocol.Poll{Instance: "i2", Results: results("x")}, ResultsFrom: 3, Generation: 1}, // another document
		{Poll: protocol.Poll{Instance: "i1", Results: results("x")}, ResultsFrom: 3, Generation: 2}, // another start
	} {
		if _, err := b.merge(bad); !errors.Is(err, hosts.ErrMalformed) {
			t.Errorf("merge %+v: %v, want ErrMalformed", bad, err)
		}
	}
	// A new start (generation) or a remount (instance) starts from 0; a
	// remount drops the old document's facts.
	p, err = b.merge(relayPoll{Poll: protocol.Poll{Instance: "i2", Results: results("b/one")}, ResultsFrom: 0, Generation: 1})
	if err != nil || len(p.Results) != 1 || p.HostInfo != nil {
		t.Fatalf("remount: %v %+v", err, p)
	}
	if b.pollArgs(map[string]any{})["facts"] != true {
		t.Error("after a remount the bridge does not ask for the facts again")
	}
}
