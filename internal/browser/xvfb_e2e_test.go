package browser_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// --headed on a machine without a display: EnsureDisplay starts Xvfb, the
// browser really runs headed on it (no HeadlessChrome, a real window), and
// Close stops Xvfb and restores the environment. CI must have Xvfb: the
// test skips only outside CI.
func TestHeadedWithoutDisplayStartsXvfb(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("Xvfb is not installed (apt-get install xvfb); CI must have it")
		}
		t.Fatal("CI is set but Xvfb is not installed: .ci/run must apt-get install xvfb")
	}
	e2etest.Require(t)
	t.Setenv("DISPLAY", "")
	os.Unsetenv("DISPLAY")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	x, err := browser.EnsureDisplay(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if x == nil {
		t.Fatal("DISPLAY is unset, yet EnsureDisplay started nothing")
	}
	defer x.Close()
	if got := os.Getenv("DISPLAY"); got != x.Display || !strings.HasPrefix(got, ":") {
		t.Fatalf("DISPLAY = %q, want Xvfb's %q", got, x.Display)
	}

	br, err := browser.Launch(browser.Options{Headed: true})
	if err != nil {
		t.Fatalf("headed launch on Xvfb %s: %v", x.Display, err)
	}
	_, p, err := br.NewPage() // the context closes with the browser
	if err != nil {
		br.Close()
		t.Fatal(err)
	}
	v, err := p.Evaluate(`() => [navigator.userAgent, window.outerWidth, window.outerHeight]`)
	br.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := v.([]any)
	if ua := got[0].(string); strings.Contains(ua, "Headless") {
		t.Errorf("the browser runs headless (%s): --headed was not honoured", ua)
	}
	if w, ok := got[1].(int); !ok || w <= 0 {
		t.Errorf("the headed window has no size on the virtual screen: outer %v×%v", got[1], got[2])
	}

	pid := x.PID()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if d, ok := os.LookupEnv("DISPLAY"); ok {
		t.Errorf("DISPLAY was unset before; after Close it is %q", d)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("Xvfb (pid %d) still runs after Close", pid)
	}
	if err := x.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
