package launch

import (
	"fmt"
	"net"
	"slices"
	"testing"
)

// TestFreePorts: the ports are distinct, free, not among the taken ones,
// and below the ephemeral range, so no listener on port 0 (a proxy
// started before the target binds them) can be handed one.
func TestFreePorts(t *testing.T) {
	lo, hi, ok := namedPorts()
	if !ok {
		t.Skip("no room below this kernel's ephemeral range")
	}
	busy, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", lo))
	if err != nil {
		t.Skip("cannot hold the range's first port:", err)
	}
	defer busy.Close()
	for range 20 {
		ports, err := freePorts(8, []int{lo})
		if err != nil {
			t.Fatal(err)
		}
		if len(ports) != 8 {
			t.Fatalf("%d ports; want 8", len(ports))
		}
		for i, p := range ports {
			if p < lo || p > hi || p == lo || slices.Contains(ports[:i], p) {
				t.Fatalf("ports %v: %d is outside [%d, %d], taken, or repeated", ports, p, lo+1, hi)
			}
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				t.Fatalf("port %d is not free: %v", p, err)
			}
			l.Close()
		}
	}
}
