//go:build unix

package faults

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// peek looks at a connection without blocking and without consuming, one
// system call: whether the peer sent something, closed, or neither.
func peek(c net.Conn) peekState {
	if lc, ok := c.(*limitConn); ok {
		c = lc.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return peekUnknown
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return peekClosed
	}
	st := peekUnknown
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			st = peekEmpty
		case err == nil && n > 0:
			st = peekData
		default: // EOF (n == 0) or an error such as a reset
			st = peekClosed
		}
		return true
	})
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return peekUnknown // a deadline passed; that says nothing about the peer
	case err != nil:
		return peekClosed
	}
	return st
}
