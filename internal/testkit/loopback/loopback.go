// Package loopback holds the tests' loopback ports.
package loopback

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FreePort is a loopback port nothing listens on now: a port the test
// then asks a server to take (a fixed fixture port, a host's own port).
//
// It is taken below the kernel's ephemeral range, not from a listener on
// port 0: a port from that range, free when checked, went to another
// process's listener or outgoing connection before the test's server took
// it (CI30: "bind: address already in use", with the self-test's fixture
// servers starting beside it). Below the range only a fixed port can take
// it, and the port is checked free before it is handed out.
func FreePort(t testing.TB) int {
	t.Helper()
	low := ephemeralLow()
	const floor = 10000
	for range 200 {
		p := floor + rand.IntN(low-floor)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		l.Close()
		return p
	}
	t.Fatalf("no free loopback port between %d and %d", floor, low)
	return 0
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux
// reads it from /proc; elsewhere the common 32768).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 10000+100 {
				return n
			}
		}
	}
	return 32768
}
