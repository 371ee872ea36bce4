package faults

import (
	"bufio"
	"net"
	"sync"
)

// handoff is the listener the net/http server accepts from: connections the
// lean path gives up, with the bytes it has read and not consumed.
type handoff struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

// newHandoff returns a hand-off whose addr the lean server sets before
// net/http's server starts accepting from it.
func newHandoff() *handoff {
	return &handoff{ch: make(chan net.Conn), done: make(chan struct{})}
}

// give passes c to the server; it reports false once the server stopped.
func (h *handoff) give(c net.Conn) bool {
	select { // a closed handoff takes nothing, even with the server accepting
	case <-h.done:
		return false
	default:
	}
	select {
	case h.ch <- c:
		return true
	case <-h.done:
		return false
	}
}

func (h *handoff) Accept() (net.Conn, error) {
	select {
	case <-h.done:
		return nil, net.ErrClosed
	default:
	}
	select {
	case c := <-h.ch:
		return c, nil
	case <-h.done:
		return nil, net.ErrClosed
	}
}

func (h *handoff) Close() error {
	h.once.Do(func() { close(h.done) })
	return nil
}

func (h *handoff) Addr() net.Addr { return h.addr }

// handedConn is a client connection the lean path handed to net/http. Reads
// drain what the lean path buffered first. No rule decision crosses the
// hand-over: net/http's path takes (and counts) every one itself.
type handedConn struct {
	net.Conn
	r  *bufio.Reader
	id uint64
}

func (c *handedConn) Read(b []byte) (int, error) { return c.r.Read(b) }
