// Package freeport chooses loopback ports for servers that mcpconform does
// not start itself on port 0: a child process given --port, a START
// command's {port}, a test's fixed fixture port.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// floor is the lowest port handed out: below it sit well-known and
// registered services.
const floor = 10000

// Loopback returns n distinct loopback ports nothing listens on now.
//
// They are taken below the kernel's ephemeral range, not from listeners
// on port 0: a port of that range, free when checked and closed, is the
// next one the kernel gives any process's port-0 listener or outgoing
// connection, and went to one before the server it was meant for took it
// (CI30: "bind: address already in use", beside the self-test's fixture
// servers). Below the range only a fixed port can take it; each port is
// still checked free, all held until the last is chosen.
func Loopback(n int) ([]int, error) {
	high := ephemeralLow()
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 200*n {
			return nil, fmt.Errorf("no %d free loopback ports between %d and %d", n, floor, high)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(floor+rand.IntN(high-floor))))
		if err != nil {
			continue // taken (or refused): another
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range: Linux
// says it in /proc; elsewhere, or where the range starts too low to leave
// room under it, the IANA range's 49152 and the Linux default's 32768
// both leave 32768 safe.
func ephemeralLow() int {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if low, err := strconv.Atoi(f[0]); err == nil && low > floor+1000 {
				return low
			}
		}
	}
	return 32768
}
