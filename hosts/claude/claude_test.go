package claude_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/claude"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"
	"github.com/mcpconform/mcpconform/protocol"
)

// One browser and one pair of fixture servers for the package, started by
// the first test that needs them (e2etest).
func TestMain(m *testing.M) { e2etest.Main(m) }

// imitation starts the local Claude imitation (testdata/page.html) and a
// storage state logged in to it; only the URL and the storage state are
// overridden, every selector is the built-in one.
var imitation = webchattest.Imitation("claude", webchattest.Options{
	SandboxPath: "/claudemcpcontent.com/sandbox.html",
	LoginPath:   "/login",
})

var (
	env = webchattest.Env
	run = webchattest.Run
)

func marker(msgs []string) string {
	for _, m := range msgs {
		if strings.HasPrefix(m, "conformance marker ") {
			return m
		}
	}
	return ""
}

// prefilled leaves text in the composer before the trigger click, as a user
// who was typing: Claude then proposes to replace it, and the commit hook
// must accept the proposal instead of sending the half-written text.
type prefilled struct{ *webchat.Chat }

func (p prefilled) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	builtin := claude.Profile()
	if err := p.Page.Locator(builtin.Sel("Composer")).Fill("half-written text"); err != nil {
		return protocol.Result{}, err
	}
	return p.Chat.ClickTrigger(ctx, req)
}

func setupFails(t *testing.T, appTimeout time.Duration) (error, time.Duration) {
	t.Helper()
	err, took, _ := webchattest.SetupFails(t, claude.New(), appTimeout)
	return err, took
}
