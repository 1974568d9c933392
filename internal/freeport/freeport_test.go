package freeport

import (
	"net"
	"strconv"
	"testing"
)

// The ports are distinct, free (a server can take each), and below the
// ephemeral range, where no port-0 listener or outgoing connection of
// another process is given them.
func TestLoopbackPortsAreFreeDistinctAndNotEphemeral(t *testing.T) {
	ports, err := Loopback(5)
	if err != nil || len(ports) != 5 {
		t.Fatalf("Loopback(5): %v %v", ports, err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Errorf("port %d handed out twice: %v", p, ports)
		}
		seen[p] = true
		if p < floor || p >= ephemeralLow() {
			t.Errorf("port %d outside [%d, %d), the range below the ephemeral ports", p, floor, ephemeralLow())
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d is not free: %v", p, err)
			continue
		}
		l.Close()
	}
}
