package hosts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The design shows in the imports: the contract (hosts), the runner and a
// host that drives nothing (hosts/connect) link no browser automation;
// the browser, the evaluate bridge and the browser hosts sit beside them.
func TestContractRunnerAndConnectLinkNoBrowser(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages' dependencies")
	}
	const mod = "github.com/mcpconform/mcpconform/"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+"hosts", mod+"runner", mod+"hosts/connect").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, banned := range []string{"playwright", mod + "bridge", mod + "internal/browser", mod + "hosts/browserhost"} {
			if strings.Contains(p, banned) {
				t.Errorf("hosts, runner or hosts/connect depends on %s", p)
			}
		}
	}
}

// relayWord is how a host package would name the relay SuiteBridge.
var relayWord = regexp.MustCompile(`(?i)\brelay`)

// No host package knows how the runner reaches the suite: the runner
// binds it in the frame a host offers (FrameBinder) or through the relay,
// so no driver names the relay (tests aside).
func TestNoHostPackageMentionsTheRelay(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == "." {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if relayWord.MatchString(l) {
				t.Errorf("%s:%d mentions the relay: %s", filepath.Join("hosts", path), i+1, strings.TrimSpace(l))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Only the browser hosts' base binds the suite in a frame: it alone
// imports the evaluate bridge, so a host whose BindSuite the runner does
// not call (a relay run) evaluates in no app frame, whatever the host.
func TestOnlyTheBrowserBaseImportsTheEvaluateBridge(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages' imports")
	}
	const mod = "github.com/mcpconform/mcpconform/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"hosts/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		for _, imp := range f[1:] {
			if imp == mod+"bridge" && f[0] != mod+"hosts/browserhost" {
				t.Errorf("%s imports the evaluate bridge; only hosts/browserhost may (its BindSuite)", f[0])
			}
		}
	}
}
