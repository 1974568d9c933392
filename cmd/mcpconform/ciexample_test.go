//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/testkit/profiledoc"
	"gopkg.in/yaml.v3"
)

// Issue #28: docs/ci.md's jobs for a custom host (GitHub Actions and
// GitLab) carry a profile that `mcpconform hosts --check` accepts without
// a warning, and it is the development host's profile of docs/profiles.md
// (which hosts/generic's devhost e2e test runs), started by START.
func TestCIExampleForACustomHostIsTheDocumentedProfile(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	dev := profileBlock(t, "dev")
	jobs := map[string]func(map[string]any) any{
		"GitHub Actions": func(y map[string]any) any { return dig(y, "jobs", "conformance", "env") },
		"GitLab CI":      func(y map[string]any) any { return dig(y, "mcp-apps-conformance", "variables") },
	}
	found := map[string]bool{}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
		if !bytes.Contains(m[1], []byte("MCPCONFORM_DEV_URL")) {
			continue
		}
		var y map[string]any
		if err := yaml.Unmarshal(m[1], &y); err != nil {
			t.Fatalf("docs/ci.md: a yaml block does not parse: %v\n%s", err, m[1])
		}
		for name, env := range jobs {
			vars, ok := env(y).(map[string]any)
			if !ok {
				continue
			}
			found[name] = true
			profile := map[string]string{}
			for k, v := range vars {
				if strings.HasPrefix(k, "MCPCONFORM_") {
					profile[k], _ = v.(string)
				}
			}
			out, err, code := hostsCLI(t, profile, "--check", "dev")
			if err != nil || code != ExitOK || strings.Contains(out, "warning:") {
				t.Errorf("%s example: mcpconform hosts --check dev: exit %d, %v\n%s", name, code, err, out)
			}
			for k, want := range dev {
				switch strings.TrimPrefix(k, "MCPCONFORM_DEV_") {
				case "URL": // START serves it on {port}
					if profile[k] != "http://127.0.0.1:{port}" || profile["MCPCONFORM_DEV_START"] == "" {
						t.Errorf("%s example: %s=%q with START %q, want the dev server START runs on {port}", name, k, profile[k], profile["MCPCONFORM_DEV_START"])
					}
				default:
					if got := steps(profile[k]); got != steps(want) {
						t.Errorf("%s example: %s is\n%s\nwhere docs/profiles.md has\n%s", name, k, got, steps(want))
					}
				}
			}
		}
	}
	for name := range jobs {
		if !found[name] {
			t.Errorf("docs/ci.md has no %s job with a MCPCONFORM_DEV_ profile", name)
		}
	}
}

// Issue #28: the `hosts --check insp` output docs/profiles.md shows is
// what the command prints for the profile above it (it had gone stale:
// no APPROVE, no example values).
func TestProfilesDocShowsTheCheckAsItIs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "profiles.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```console\n\\$ mcpconform hosts --check insp\n(.*?)\\$ ").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/profiles.md shows no `$ mcpconform hosts --check insp`")
	}
	out, err, code := hostsCLI(t, profileBlock(t, "insp", "TOKEN=0123"), "--check", "insp")
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if out != string(m[1]) {
		t.Errorf("docs/profiles.md shows\n%s\nmcpconform hosts --check insp prints\n%s", m[1], out)
	}
}

// profileBlock is the docs/profiles.md example name's MCPCONFORM_*
// variables (profiledoc.Block).
func profileBlock(t *testing.T, name string, env ...string) map[string]string {
	t.Helper()
	return profiledoc.Block(t, filepath.Join("..", ".."), name, "MCPCONFORM_", env...)
}

// steps is a variable's value with each line trimmed and blank lines
// dropped: YAML and shell quote the same steps differently.
func steps(v string) string {
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// dig is y[keys[0]][keys[1]]…, nil where a key is missing.
func dig(y any, keys ...string) any {
	for _, k := range keys {
		m, ok := y.(map[string]any)
		if !ok {
			return nil
		}
		y = m[k]
	}
	return y
}
