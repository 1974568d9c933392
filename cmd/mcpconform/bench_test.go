package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/bench"
)

// benchApp runs the bench command in this process (app.go wires it into
// the real binary).
func benchApp(args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	app := &cli.App{Name: "mcpconform", Writer: &o, ErrWriter: &e, ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{benchCommand()}}
	err = app.Run(append([]string{"mcpconform", "bench"}, args...))
	return o.String(), e.String(), err
}

func TestBenchRejectsBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--round-trips", "0"}, "--round-trips must be between 1 and 100000"},
		{[]string{"--baseline-interval", "0s"}, "--baseline-interval must be between 1ms and 1m"},
		{[]string{"--browser-ws", "ws://127.0.0.1:1/", "--cdp", "http://127.0.0.1:2"}, "exclude each other"},
		{[]string{"--run", "[x"}, "not a valid glob"},
		{[]string{"--repeat", "0"}, "--repeat must be between 1 and 20"},
		{[]string{"--relay-round-trips", "-1"}, "--relay-round-trips must be between 0 and 100000"},
		{[]string{"extra"}, "bench takes no arguments"},
	} {
		_, _, err := benchApp(c.args...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bench %q: %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
}

// readBench reads the figures a bench wrote with --json to path.
func readBench(t *testing.T, path string) ([]byte, bench.Result) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r bench.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return b, r
}
