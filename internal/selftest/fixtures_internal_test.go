package selftest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordHost stands in for the reference host: its Setup connects to the
// fixture server it was given, as a host does, and reads how many MCP
// sessions that server has recorded by the time both runs are connected.
type recordHost struct {
	both      *sync.WaitGroup // every run has connected (or failed to)
	once      sync.Once
	url       string
	initSeen  int
	setupDone error
}

var errStop = errors.New("seen enough")

func (h *recordHost) Name() string { return "record" }

// BindSuite makes the runner take the app-frame path (no relay), as with
// the reference host; there is no suite to bind.
func (h *recordHost) BindSuite(context.Context, time.Duration) (hosts.SuiteBridge, error) {
	return nil, errStop
}
func (h *recordHost) Teardown(context.Context) error {
	return nil
}
func (h *recordHost) Setup(ctx context.Context, env hosts.Env) error {
	// Counted once whatever happens, so that a run that fails to connect
	// does not leave the other waiting for it.
	defer h.once.Do(h.both.Done)
	h.url = env.ServerURL
	c := mcp.NewClient(&mcp.Implementation{Name: "record-host", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.ServerURL}, nil)
	if err != nil {
		h.setupDone = err
		return err
	}
	defer cs.Close()
	h.once.Do(h.both.Done)
	if err := waitGroup(ctx, h.both, 30*time.Second); err != nil {
		h.setupDone = err
		return err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolProbe, Arguments: map[string]any{"op": "observations", "value": map[string]any{"tools": []string{}}}})
	if err != nil {
		h.setupDone = err
		return err
	}
	var out struct {
		Observations struct {
			Initializes []json.RawMessage `json:"initializes"`
		} `json:"observations"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		h.setupDone = err
		return err
	}
	h.initSeen = len(out.Observations.Initializes)
	return nil
}

// waitGroup waits for wg, at most d or until ctx ends.
func waitGroup(ctx context.Context, wg *sync.WaitGroup, d time.Duration) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return fmt.Errorf("the other run did not connect within %s", d)
	}
}

// TestRunsAtOnceKeepRecordsApart: two self-test runs at once, each given
// the same Env, connect to fixture servers of their own, so that neither
// finds the other's host in the record its checks read (with one shared
// server, a check counted another run's probe resource read as its
// host's, and others found their probe's reports dropped for the other
// runs'). Each run's server is gone when the run ends.
func TestRunsAtOnceKeepRecordsApart(t *testing.T) {
	fx, err := fixtures.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	shared := hosts.Env{ServerURL: fx.Main.URL, SecondServerURL: fx.Second.URL}
	var both sync.WaitGroup
	both.Add(2)
	hs := []*recordHost{{both: &both}, {both: &both}}
	var wg sync.WaitGroup
	for _, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = ownFixturesRun(t.Context(), h, runner.Options{Env: shared})
		}()
	}
	// Each run's Setup gives up on the other after 30 s.
	if err := waitGroup(t.Context(), &wg, time.Minute); err != nil {
		t.Fatalf("the runs did not end: %v", err)
	}
	for i, h := range hs {
		if h.setupDone != nil {
			t.Fatalf("run %d: %v", i, h.setupDone)
		}
		if h.url == shared.ServerURL || h.url == "" {
			t.Errorf("run %d connected to %q: want a fixture server of its own, not Env's %q", i, h.url, shared.ServerURL)
		}
		if h.initSeen != 1 {
			t.Errorf("run %d: its fixture server recorded %d MCP sessions while both runs were connected: want 1, its own host's", i, h.initSeen)
		}
	}
	if hs[0].url == hs[1].url {
		t.Errorf("both runs connected to %s", hs[0].url)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "late", Version: "1"}, nil)
	if cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs[0].url}, nil); err == nil {
		cs.Close()
		t.Errorf("the fixture server of a finished run still answers at %s", hs[0].url)
	}
}
