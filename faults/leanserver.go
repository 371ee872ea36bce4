package faults

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// leanServer is a proxy's lean HTTP/1.1 path (lean.go serves one
// connection). It accepts every client connection and owns what serving
// them takes: the upstream pool, the connections it serves, and the
// hand-off listener from which net/http's server accepts the connections it
// gives up.
type leanServer struct {
	p       *Proxy
	pool    *upstreamPool
	handoff *handoff
	handed  atomic.Uint64 // connections given to net/http

	mu    sync.Mutex
	conns map[*leanConn]struct{}
}

func newLeanServer(p *Proxy) *leanServer {
	return &leanServer{
		p:       p,
		pool:    newUpstreamPool(hostPort(p.upstream), p.limits),
		handoff: newHandoff(),
		conns:   map[*leanConn]struct{}{},
	}
}

// serve accepts connections on l and serves each on the lean path, with
// net/http's server serving the hand-off meanwhile, until l closes.
func (s *leanServer) serve(l net.Listener) error {
	s.handoff.addr = l.Addr()
	go func() { _ = s.p.srv.Serve(s.handoff) }()
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if s.p.isClosed() {
				return nil
			}
			if !temporary(err) {
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.p.log.Warn("faults: accept", "err", err, "retry", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if lc := s.newConn(c); lc != nil {
			go lc.serve()
		}
	}
}

func temporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// newConn registers c, or closes it and returns nil once the proxy closed.
func (s *leanServer) newConn(c net.Conn) *leanConn {
	lc := &leanConn{p: s.p, s: s, c: c, id: s.p.connSeq.Add(1)}
	lc.cr.c = c
	lc.br = bufio.NewReaderSize(&lc.cr, leanBufSize)
	lc.bw = bufio.NewWriterSize(c, leanBufSize)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p.isClosed() {
		c.Close()
		return nil
	}
	s.conns[lc] = struct{}{}
	return lc
}

// forget drops lc from the connections the lean path serves.
func (s *leanServer) forget(lc *leanConn) {
	s.mu.Lock()
	delete(s.conns, lc)
	s.mu.Unlock()
}

// handOver gives c, with the bytes read from it and not consumed, to
// net/http's server; it reports false once that server stopped.
func (s *leanServer) handOver(c net.Conn, buffered *bufio.Reader, id uint64) bool {
	s.handed.Add(1)
	return s.handoff.give(&handedConn{Conn: c, r: buffered, id: id})
}

// stop refuses further hand-overs; the caller closed the listener.
func (s *leanServer) stop() {
	if s != nil {
		_ = s.handoff.Close()
	}
}

// drain closes idle lean connections until none is left, letting busy
// ones finish their exchange, or until ctx ends.
func (s *leanServer) drain(ctx context.Context) error {
	if s == nil {
		return nil
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		for lc := range s.conns {
			lc.mu.Lock()
			if !lc.active && !lc.killed {
				lc.killed = true
				_ = lc.c.Close()
			}
			lc.mu.Unlock()
		}
		n := len(s.conns)
		s.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// kill closes every lean connection, its upstream call and the pool.
func (s *leanServer) kill() {
	if s == nil {
		return
	}
	s.mu.Lock()
	for lc := range s.conns {
		lc.mu.Lock()
		lc.killed = true
		_ = lc.c.Close()
		if lc.up != nil {
			_ = lc.up.c.Close()
		}
		lc.mu.Unlock()
	}
	s.mu.Unlock()
	s.pool.close()
}
