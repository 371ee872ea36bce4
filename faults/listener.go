package faults

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener caps concurrent accepted connections so a flood queues in
// the kernel backlog instead of in proxy memory. A client that arrives when
// every slot is taken gets the slot of the connection idle the longest (a
// kept-alive one waiting for its next request, or a new one that has sent
// nothing yet), so idle sockets, however many, never lock out a new client.
// Closing an idle connection is always allowed (RFC 9112 §9.5); clients
// retry a request that meets such a close on a reused connection.
type limitListener struct {
	net.Listener
	sem  chan struct{}
	wake chan struct{} // a connection went idle: a waiting client may take its slot
	done chan struct{}
	once sync.Once

	mu   sync.Mutex
	idle map[*limitConn]time.Time // idle connections and since when
}

func newLimitListener(l net.Listener, n int) *limitListener {
	return &limitListener{
		Listener: l,
		sem:      make(chan struct{}, n),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		idle:     map[*limitConn]time.Time{},
	}
}

// Accept takes the next connection, then waits for a slot, closing the
// connection idle the longest if all are taken. Only the one connection in
// hand waits in memory; the rest wait in the backlog.
func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.sem <- struct{}{}:
			lc := &limitConn{Conn: c, l: l}
			l.setIdle(lc, true) // until its first request begins
			return lc, nil
		default:
		}
		if l.evictOldest() {
			continue // its Close freed the slot
		}
		select {
		case l.sem <- struct{}{}:
			lc := &limitConn{Conn: c, l: l}
			l.setIdle(lc, true)
			return lc, nil
		case <-l.wake:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// evictOldest closes the connection idle the longest, if there is one.
func (l *limitListener) evictOldest() bool {
	l.mu.Lock()
	var oldest *limitConn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest != nil {
		delete(l.idle, oldest)
		oldest.idle.Store(false)
	}
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// setIdle marks c as waiting for a request (idle) or serving one.
func (l *limitListener) setIdle(c *limitConn, idle bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !idle || c.closed {
		delete(l.idle, c)
		c.idle.Store(false)
		return
	}
	if _, ok := l.idle[c]; !ok {
		l.idle[c] = time.Now()
		c.idle.Store(true)
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	l      *limitListener
	once   sync.Once
	closed bool        // guarded by l.mu
	idle   atomic.Bool // in l.idle; read without the lock on every Read
}

// Read marks c busy once bytes of a request arrive: net/http reports a
// connection active only after the whole head is read, and a slow head is
// a request in progress, not an idle slot to take.
func (c *limitConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.idle.Load() {
		c.l.setIdle(c, false)
	}
	return n, err
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.closed = true
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		<-c.l.sem
	})
	return err
}

// tcp returns the underlying TCP connection, for SO_LINGER.
func (c *limitConn) tcp() (*net.TCPConn, bool) {
	tc, ok := c.Conn.(*net.TCPConn)
	return tc, ok
}

// markIdle tells c's listener, if c came from one, whether c waits for a
// request (idle) or serves one.
func markIdle(c net.Conn, idle bool) {
	c = rawConn(c)
	if hc, ok := c.(*handedConn); ok {
		c = hc.Conn
	}
	if lc, ok := c.(*limitConn); ok {
		lc.l.setIdle(lc, idle)
	}
}
