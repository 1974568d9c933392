package relay_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/bridge/relay"
	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/internal/testkit/relaytest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// referencePasses is the reference host's verdict on every check through the
// evaluate bridge, with or without the rerender-once variation.
func referencePasses(string) protocol.Status { return protocol.StatusPass }

// The reference host over the relay gives the evaluate bridge's verdicts.
func TestReferenceRelayMatchesEvaluate(t *testing.T) {
	relaytest.Compare(t, func() hosts.Host { return reference.New() }, 30*time.Second, 6*time.Minute, false, referencePasses)
}

// A relay run whose View never appears fails naming what the relay needs
// of the host.
func TestAwaitNamesServerTools(t *testing.T) {
	rl := relay.New(mcpserver.New(mcpserver.Options{}).Relay())
	defer rl.Close()
	_, err := runner.SetUp(context.Background(), frameless{}, runner.Options{Relay: rl, Env: hosts.Env{AppTimeout: 100 * time.Millisecond}})
	if !errors.Is(err, relay.ErrNoView) || !strings.Contains(err.Error(), "serverTools") || !strings.Contains(err.Error(), "within 100ms (--app-timeout)") {
		t.Fatalf("a relay run with no View: %v", err)
	}
}

// frameless shows nothing and offers no frame.
type frameless struct{}

func (frameless) Name() string                           { return "frameless" }
func (frameless) Setup(context.Context, hosts.Env) error { return nil }
func (frameless) Teardown(context.Context) error         { return nil }

// A host that tears the suite's View down and renders it again (the
// rerender-once variation): the first View says bye on its teardown, the
// fresh one binds at once, and the run over the relay gives the evaluate
// bridge's verdicts. The moments a remount can fall on are placed one by
// one, without a browser, in remount_test.go.
func TestRelayRemountedView(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two full runs")
	}
	v := reference.VariationSet{"rerender-once": true}
	start := time.Now()
	relaytest.Compare(t, func() hosts.Host { return reference.NewWith(nil, v) }, 30*time.Second, 6*time.Minute, true, referencePasses)
	t.Logf("the relay run in %s", time.Since(start).Round(time.Millisecond))
}
