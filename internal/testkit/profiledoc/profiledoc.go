// Package profiledoc runs the env profile examples of docs/profiles.md, so
// that the documented example is what the tests drive: a test that runs a
// block the docs no longer hold, or that no longer runs, fails.
package profiledoc

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Block runs the <!-- profile:name --> sh block of docs/profiles.md with
// bash (only PATH and env set) and returns the variables it exports whose
// names start with prefix. root is the repository's root, relative to the
// test's directory.
func Block(t testing.TB, root, name, prefix string, env ...string) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "profiles.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- profile:" + regexp.QuoteMeta(name) + " .*?-->\n```sh\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/profiles.md has no <!-- profile:%s --> sh block", name)
	}
	cmd := exec.Command("bash", "-euc", string(m[1])+"\nenv -0")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the profile:%s example of docs/profiles.md does not run: %v\n%s", name, err, stderr.String())
	}
	vars := map[string]string{}
	for _, kv := range strings.Split(out.String(), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, prefix) {
			vars[k] = v
		}
	}
	return vars
}
