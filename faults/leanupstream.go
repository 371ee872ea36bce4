package faults

import (
	"bufio"
	"context"
	"net"
	"sync"
	"time"
)

// upstreamPool keeps idle keep-alive connections to the upstream for the
// lean path. A connection is handed out only after a non-blocking check
// that the upstream has not closed it, and a request that fails on it is
// never sent again: every delivery upstream is one the journal counts.
type upstreamPool struct {
	addr     string
	dialer   net.Dialer
	maxIdle  int
	idleTime time.Duration

	mu     sync.Mutex
	idle   []*upConn // most recently used last
	closed bool
}

// upConn is one upstream connection with its buffers.
type upConn struct {
	c      net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	usedAt time.Time
}

func newUpstreamPool(addr string, l Limits) *upstreamPool {
	return &upstreamPool{
		addr:     addr,
		dialer:   net.Dialer{Timeout: l.DialTimeout, KeepAlive: 30 * time.Second},
		maxIdle:  1024,
		idleTime: 90 * time.Second,
	}
}

// take returns an idle connection the upstream has neither closed nor
// written to, or nil.
func (up *upstreamPool) take() *upConn {
	now := time.Now()
	for {
		up.mu.Lock()
		n := len(up.idle)
		if n == 0 {
			up.mu.Unlock()
			break
		}
		uc := up.idle[n-1]
		up.idle[n-1] = nil
		up.idle = up.idle[:n-1]
		up.mu.Unlock()
		if st := peek(uc.c); now.Sub(uc.usedAt) < up.idleTime && uc.br.Buffered() == 0 && (st == peekEmpty || st == peekUnknown) {
			return uc
		}
		uc.c.Close()
	}
	return nil
}

// dial opens a new connection.
func (up *upstreamPool) dial(ctx context.Context) (*upConn, error) {
	c, err := up.dialer.DialContext(ctx, "tcp", up.addr)
	if err != nil {
		return nil, err
	}
	return &upConn{c: c, br: bufio.NewReaderSize(c, 16<<10), bw: bufio.NewWriterSize(c, 8<<10)}, nil
}

// put returns a connection whose last response was read in full.
func (up *upstreamPool) put(uc *upConn) {
	uc.usedAt = time.Now()
	up.mu.Lock()
	if up.closed || len(up.idle) >= up.maxIdle {
		up.mu.Unlock()
		uc.c.Close()
		return
	}
	up.idle = append(up.idle, uc)
	// The oldest idle connections sit at the front, where take never looks
	// while traffic flows: close the expired ones here.
	var stale []*upConn
	for len(up.idle) > 1 && uc.usedAt.Sub(up.idle[0].usedAt) > up.idleTime {
		stale = append(stale, up.idle[0])
		up.idle[0] = nil
		up.idle = up.idle[1:]
	}
	up.mu.Unlock()
	for _, s := range stale {
		s.c.Close()
	}
}

// close closes the idle connections and every one put back later.
func (up *upstreamPool) close() {
	up.mu.Lock()
	idle := up.idle
	up.idle, up.closed = nil, true
	up.mu.Unlock()
	for _, uc := range idle {
		uc.c.Close()
	}
}
