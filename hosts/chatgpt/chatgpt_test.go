package chatgpt_test

import (
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/chatgpt"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"
)

// One browser and one pair of fixture servers for the package, started by
// the first test that needs them (e2etest).
func TestMain(m *testing.M) { e2etest.Main(m) }

// imitation starts the local ChatGPT imitation (testdata/page.html) and a
// storage state logged in to it, and returns the environment that points
// the driver at it. Only the URL and the storage state are overridden:
// every selector is the built-in one.
var imitation = webchattest.Imitation("chatgpt", webchattest.Options{
	SandboxPath:    "/web-sandbox.oaiusercontent.com/sandbox.html",
	LoginPath:      "/auth/login",
	RequireMention: true,
})

var lookup = webchattest.Lookup

type logs = webchattest.Logs

var env = webchattest.Env

// setupFails runs Setup with the real environment (t.Setenv) and returns
// its error and duration.
func setupFails(t *testing.T, appTimeout time.Duration) (error, time.Duration, *logs) {
	t.Helper()
	return webchattest.SetupFails(t, chatgpt.New(), appTimeout)
}
