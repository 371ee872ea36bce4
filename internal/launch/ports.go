package launch

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
)

// freePorts returns n free loopback ports, distinct from one another and
// from taken: it holds every port open until it has them all. It draws
// them below the kernel's ephemeral range (namedPorts), from which every
// listener on port 0 is given one: resilcheck's proxies start between
// the pick and the target's bind, and one of them was handed a port just
// released for the target (a run aborted on "address already in use").
// Another process could still take one; a target that fails to bind exits,
// which Launch reports with its output. Ports are no draw of the run (they
// change nothing judged), so they do not come from its seed.
func freePorts(n int, taken []int) ([]int, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	hold := func(addr string) (int, bool, error) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return 0, false, err
		}
		held = append(held, l)
		port := l.Addr().(*net.TCPAddr).Port
		return port, !slices.Contains(taken, port), nil
	}
	var ports []int
	if lo, hi, ok := namedPorts(); ok {
		for tries := 0; len(ports) < n && tries < 64*n; tries++ {
			port := lo + rand.IntN(hi-lo+1)
			if slices.Contains(ports, port) {
				continue
			}
			if got, free, err := hold(fmt.Sprintf("127.0.0.1:%d", port)); err == nil && free {
				ports = append(ports, got)
			}
		}
	}
	for tries := 0; len(ports) < n; tries++ { // no room below the ephemeral range, or all taken: ask the kernel
		if tries >= n+len(taken)+16 {
			return nil, fmt.Errorf("targets: finding %d free ports: the kernel kept offering taken ones", n)
		}
		port, free, err := hold("127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("targets: finding a free port: %w", err)
		}
		if free {
			ports = append(ports, port)
		}
	}
	return ports, nil
}

// namedPorts is where freePorts draws: from 10000 to just below the start
// of the kernel's ephemeral range (Linux's ip_local_port_range, 32768
// when unreadable); ok is false when that leaves fewer than 1000 ports.
func namedPorts() (lo, hi int, ok bool) {
	ephemeral := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				ephemeral = v
			}
		}
	}
	lo, hi = 10000, ephemeral-1
	return lo, hi, hi-lo+1 >= 1000
}

// FreeAddrs returns n distinct free loopback addresses, drawn as freePorts
// draws: for a listener the harness itself starts at a fixed address (a
// dependency's listen), which no other listener on port 0 can take first.
func FreeAddrs(n int) ([]string, error) {
	ports, err := freePorts(n, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, n)
	for i, p := range ports {
		out[i] = fmt.Sprintf("127.0.0.1:%d", p)
	}
	return out, nil
}
