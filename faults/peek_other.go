//go:build !unix

package faults

import "net"

// peek cannot look without blocking here: callers fall back to what a
// read or write later reports.
func peek(net.Conn) peekState { return peekUnknown }
