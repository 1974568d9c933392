package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// testHost is a built-in host added the way every built-in is: its init
// calls hosts.Register (a real one would sit in its own package, imported
// by hosts/builtin). Nothing else in cmd names it.
type testHost struct{}

func init() { hosts.Register("zz-registered", func() hosts.Host { return testHost{} }) }

func (testHost) Name() string { return "zz-registered" }
func (testHost) Setup(context.Context, hosts.Env) (hosts.SuiteBridge, error) {
	return nil, context.Canceled
}
func (testHost) Teardown(context.Context) error { return nil }
func (testHost) ReadConsole(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: true}, nil
}

// `mcpconform hosts` lists a host registered that way, with its
// capabilities, and --check knows it as a built-in.
func TestHostsListsARegisteredHost(t *testing.T) {
	out, err, code := hostsCLI(t, nil)
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "zz-registered" {
			row = f
		}
	}
	if len(row) != 3 || row[1] != "built-in" || row[2] != "readConsole" {
		t.Errorf("the registered host's row: %q\n%s", row, out)
	}
	out, err, code = hostsCLI(t, nil, "--check", "zz-registered")
	if code != ExitOK || !strings.Contains(out, "zz-registered is a built-in host") || !strings.Contains(out, "capabilities: readConsole") {
		t.Errorf("--check: exit %d %v\n%s", code, err, out)
	}
}
