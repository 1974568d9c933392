package reference

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:0": true, "[::1]:80": true, "127.0.0.1": true,
		"0.0.0.0:8080": false, "192.168.1.2:80": false, ":8080": false, "example.com:80": false,
	} {
		if got := isLoopbackAddr(addr); got != want {
			t.Errorf("isLoopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestListDefectsAndVariations(t *testing.T) {
	var b strings.Builder
	if err := ListDefects(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "DEFECT") || len(lines) != len(Defects)+1 || !strings.Contains(b.String(), "no-visibility-guard") {
		t.Errorf("defects table:\n%s", b.String())
	}
	b.Reset()
	if err := ListVariations(&b); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "VARIATION") || len(lines) != len(Variations)+1 || !strings.Contains(b.String(), "no-agent") {
		t.Errorf("variations table:\n%s", b.String())
	}
}

// Bad options are a *UsageError and start nothing (Serve returns at once
// although ctx never ends); a non-loopback --listen is warned about first.
func TestServeOptionErrors(t *testing.T) {
	cases := []struct {
		name string
		o    ServeOptions
		want string
		warn string
	}{
		{"defect", ServeOptions{Defects: []string{"nope"}}, `unknown host defect "nope"`, ""},
		{"variation", ServeOptions{Variations: []string{"nope"}}, `unknown host variation "nope"`, ""},
		{"server", ServeOptions{Servers: []string{"ftp://x"}}, `--server "ftp://x" is not an http(s) URL`, ""},
		{"listen", ServeOptions{Listen: "0.0.0.0:0", Servers: []string{"nope"}}, `--server "nope"`, "reference host is reachable from other machines"},
		{"public", ServeOptions{PublicURL: "ftp://x", Listen: "0.0.0.0:0"}, "", "fixture servers are reachable from other machines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var warns []string
			c.o.Warnf = func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
			var out strings.Builder
			err := Serve(context.Background(), c.o, &out)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Serve = %v, want a UsageError containing %q", err, c.want)
			}
			if out.Len() > 0 {
				t.Errorf("printed %q before failing", out.String())
			}
			if c.warn == "" && len(warns) > 0 || c.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], c.warn)) {
				t.Errorf("warnings %q, want one containing %q", warns, c.warn)
			}
		})
	}
}
