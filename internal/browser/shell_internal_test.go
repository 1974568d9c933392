package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The headless shell is taken only from the browser's own directory, only
// when it is an executable file, through a symlinked browser too.
func TestHeadlessShellBeside(t *testing.T) {
	exe := func(path string, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	debian := t.TempDir()
	full := exe(filepath.Join(debian, "chromium"), 0o755)
	if got := headlessShellBeside(full); got != "" {
		t.Errorf("no shell installed: got %q", got)
	}
	shell := exe(filepath.Join(debian, "chromium-headless-shell"), 0o755)
	if got := headlessShellBeside(full); got != shell {
		t.Errorf("Debian's layout: got %q, want %q", got, shell)
	}
	// A browser reached through a symlink elsewhere (/usr/bin/chromium →
	// /usr/lib/chromium/chromium on some distributions).
	link := filepath.Join(t.TempDir(), "chromium")
	if err := os.Symlink(full, link); err != nil {
		t.Fatal(err)
	}
	if got := headlessShellBeside(link); got != shell {
		t.Errorf("through a symlink: got %q, want %q", got, shell)
	}
	// Not executable, or a directory: not a shell.
	other := t.TempDir()
	browser := exe(filepath.Join(other, "chrome"), 0o755)
	exe(filepath.Join(other, "chrome-headless-shell"), 0o644)
	if err := os.Mkdir(filepath.Join(other, "headless_shell"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := headlessShellBeside(browser); got != "" {
		t.Errorf("a non-executable file and a directory: got %q", got)
	}
	// The shell itself, found as the browser: launched as it is.
	if got := headlessShellBeside(shell); got != "" {
		t.Errorf("the shell as the browser: got %q", got)
	}
	if got := headlessShellBeside(""); got != "" {
		t.Errorf("no browser: got %q", got)
	}
}

// On a machine with Debian's chromium-headless-shell beside the Chromium
// Locate finds, a headless launch runs the shell and says so in Version;
// an explicit browser is launched as given.
func TestHeadlessLaunchPrefersTheShellBesideTheBrowser(t *testing.T) {
	full := requireBrowser(t)
	shell := headlessShellBeside(full)
	if shell == "" {
		// .ci/run installs Debian's package beside Debian's Chromium.
		if os.Getenv("MCPCONFORM_REQUIRE_BROWSER") == "1" && full == "/usr/lib/chromium/chromium" {
			t.Fatalf("no headless shell beside %s (MCPCONFORM_REQUIRE_BROWSER=1: apt-get install chromium-headless-shell)", full)
		}
		t.Skipf("no headless shell beside %s (Debian: apt-get install chromium-headless-shell)", full)
	}
	t.Setenv("MCPCONFORM_BROWSER", "")
	b, err := Launch(Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if b.Executable != shell || !b.HeadlessShell || !strings.HasPrefix(b.Version(), "Chromium headless shell ") || b.Paths.Browser != full {
		t.Errorf("headless launch: executable %q (shell %v), version %q, browser %q; want the shell %q beside %q", b.Executable, b.HeadlessShell, b.Version(), b.Paths.Browser, shell, full)
	}
	b.Close()
	t.Setenv("MCPCONFORM_BROWSER", full)
	b, err = Launch(Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Executable != full || b.HeadlessShell || strings.Contains(b.Version(), "shell") {
		t.Errorf("explicit MCPCONFORM_BROWSER=%s: executable %q, version %q", full, b.Executable, b.Version())
	}
}
