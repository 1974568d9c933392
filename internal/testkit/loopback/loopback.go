// Package loopback holds the tests' loopback ports.
package loopback

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/freeport"
)

// FreePort is a loopback port nothing listens on now: a port the test
// then asks a server to take (a fixed fixture port, a host's own port),
// chosen as the product chooses one (freeport: below the ephemeral range,
// where no other process's port-0 listener takes it first).
func FreePort(t testing.TB) int {
	t.Helper()
	ps, err := freeport.Loopback(1)
	if err != nil {
		t.Fatal(err)
	}
	return ps[0]
}
