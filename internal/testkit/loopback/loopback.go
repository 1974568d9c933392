// Package loopback holds the tests' loopback ports.
package loopback

import (
	"net"
	"testing"
)

// FreePort is a loopback port nothing listens on now: a port the test
// then asks a server to take (a fixed fixture port, a host's own port).
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
