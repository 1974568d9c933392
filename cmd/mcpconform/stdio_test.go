package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
)

// `mcpconform stdio URL` is the fixture server to a host that launches a
// command: the host's initialize on standard input is answered by the
// fixture server on standard output, the server records the host by its
// own name, and closing standard input ends the command with exit 0.
func TestStdioCommandServesTheFixtureServer(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{SuiteHTML: "<!doctype html><p>suite</p>"})
	l, err := mcpserver.Listen(context.Background(), s, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	stdin, hostW := io.Pipe()
	hostR, stdout := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- runIO([]string{"stdio", l.URL}, stdin, stdout, &stderr); stdout.Close() }()

	io.WriteString(hostW, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},"clientInfo":{"name":"desktop-host","version":"3"}}}`+"\n")
	line, err := bufio.NewReader(hostR).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer on standard output: %v (stderr %q)", err, stderr.String())
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.ID != 7 || resp.Result.ServerInfo.Name != mcpserver.DefaultName {
		t.Fatalf("the answer on standard output: %s (%v)", line, err)
	}
	if o := s.Observations(); len(o.Initializes) != 1 || o.Initializes[0].ClientName != "desktop-host" {
		t.Errorf("the fixture server saw %+v", o.Initializes)
	}
	hostW.Close()
	select {
	case c := <-code:
		if c != ExitOK {
			t.Errorf("exit %d after standard input closed, want 0 (stderr %q)", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stdio did not end after standard input closed")
	}
}

func TestStdioCommandRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"stdio"}, ExitUsage, "takes the fixture server's URL"},
		{[]string{"stdio", "127.0.0.1:8080/mcp"}, ExitUsage, "not an http(s) URL"},
		{[]string{"stdio", "http://a/mcp", "extra"}, ExitUsage, "got 2 arguments"},
		// Nothing listens on port 1: trouble reaching the server, exit 3.
		{[]string{"stdio", "http://127.0.0.1:1/mcp"}, ExitInfra, "127.0.0.1:1"},
	} {
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}` + "\n")
		var out, errb bytes.Buffer
		if c := runIO(tc.args, in, &out, &errb); c != tc.code || !strings.Contains(errb.String(), tc.says) {
			t.Errorf("mcpconform %v: exit %d %q, want exit %d saying %q", tc.args, c, errb.String(), tc.code, tc.says)
		}
		if tc.code == ExitUsage && out.Len() != 0 {
			t.Errorf("mcpconform %v wrote %q to standard output", tc.args, out.String())
		}
	}
}
