package wiretrace

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var traceFile string

// The trace is read from the environment once per process: on for the
// whole package.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wiretrace")
	if err != nil {
		panic(err)
	}
	traceFile = filepath.Join(dir, "trace.log")
	os.Setenv(EnvVar, traceFile)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A traced request: its JSON-RPC call once the handler read the body, the
// answer's status and the JSON-RPC ids of its SSE events, and the
// handler's return; the handler reads and writes as without the trace.
func TestHandler(t *testing.T) {
	h := Handler("front", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != `{"jsonrpc":"2.0","id":3,"method":"tools/call"}` {
			t.Errorf("handler read %q", b)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n")
		http.NewResponseController(w).Flush()
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(got), `"id":3,"result"`) {
		t.Fatalf("answer through the traced handler: %q", got)
	}
	b, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{
		"front #1 POST /mcp from ",
		"front #1 body read to EOF (46 bytes): rpc=tools/call[3]",
		"front #1 header 200 text/event-stream",
		`front #1 wrote 59 bytes err=<nil>: "event: message"; data result[3];`,
		"front #1 returned after ",
		"status=200 bytes=59 flushes=1 writeErr=<nil> clientGone=<nil> panic=<nil>",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("expected the trace to contain %q; it is:\n%s", want, log)
		}
	}
}
