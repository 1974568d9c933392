package browser_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

// With a display, EnsureDisplay starts nothing and leaves DISPLAY alone.
func TestEnsureDisplayKeepsAnExistingDisplay(t *testing.T) {
	t.Setenv("DISPLAY", ":4242")
	x, err := browser.EnsureDisplay(context.Background(), nil)
	if err != nil || x != nil {
		t.Fatalf("DISPLAY is set: want nothing started, got %v %v", x, err)
	}
	if os.Getenv("DISPLAY") != ":4242" {
		t.Fatal("DISPLAY changed")
	}
	if err := x.Close(); err != nil {
		t.Fatal("Close on nil:", err)
	}
}

// Without Xvfb on PATH the error says what to install.
func TestEnsureDisplayWithoutXvfb(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("PATH", t.TempDir())
	_, err := browser.EnsureDisplay(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "apt-get install xvfb") {
		t.Fatalf("want ErrNoXvfb naming the package, got %v", err)
	}
}
