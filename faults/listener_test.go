package faults

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// keepAliveConn is a raw client connection that sends one request at a
// time and keeps the connection open between them.
type keepAliveConn struct {
	c  net.Conn
	br *bufio.Reader
}

func dialKeepAlive(t *testing.T, p *Proxy) *keepAliveConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostOf(p), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &keepAliveConn{c: c, br: bufio.NewReader(c)}
}

// get sends one GET and reads its answer within wait.
func (k *keepAliveConn) get(wait time.Duration) (*http.Response, error) {
	_ = k.c.SetDeadline(time.Now().Add(wait))
	defer k.c.SetDeadline(time.Time{})
	if _, err := io.WriteString(k.c, "GET /k HTTP/1.1\r\nHost: h\r\n\r\n"); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(k.br, &http.Request{Method: "GET"})
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

// TestProxy_IdleConnectionsMakeRoom holds MaxConns idle keep-alive
// connections, then requires each new client to be served at once (well
// before the idle timeout), the oldest idle connection giving up its slot.
func TestProxy_IdleConnectionsMakeRoom(t *testing.T) {
	t.Parallel()
	const maxConns, newClients = 8, 24
	for _, path := range []string{"lean", "net/http"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, nil)
			p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{MaxConns: maxConns, IdleTimeout: time.Hour}),
				func(p *Proxy) { p.noLean = path != "lean" })
			held := make([]*keepAliveConn, maxConns)
			for i := range held {
				held[i] = dialKeepAlive(t, p)
				if _, err := held[i].get(10 * time.Second); err != nil {
					t.Fatalf("connection %d of the limit: %v", i, err)
				}
			}
			// A client reads its answer before the proxy marks the connection
			// idle again: wait until it has, or a newcomer's turn could come
			// first and held[0] would not be the oldest.
			idleCount(t, p, maxConns)
			// Every new client is one more idle connection afterwards: each
			// must push out the oldest, whether an original one or a newcomer.
			var slowest time.Duration
			for i := range newClients {
				start := time.Now()
				resp, err := dialKeepAlive(t, p).get(10 * time.Second)
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("new client %d with %d idle connections held: %v %v", i, maxConns, resp, err)
				}
				slowest = max(slowest, time.Since(start))
			}
			t.Logf("%s: %d idle connections held, %d new clients served, slowest %v", path, maxConns, newClients, slowest)
			_ = held[0].c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := held[0].br.ReadByte(); err != io.EOF {
				t.Errorf("the oldest idle connection was not closed: %v", err)
			}
		})
	}
}

// TestProxy_HalfSentHeadIsNotIdle: a connection that has sent part of a
// request head is serving a request, not idle: a newcomer at the limit
// must not close it, on either path, and it completes its request.
func TestProxy_HalfSentHeadIsNotIdle(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"lean", "net/http"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, nil)
			p := startProxy(t, WithUpstream(up.url(t)), WithLimits(Limits{MaxConns: 1, IdleTimeout: time.Hour}),
				func(p *Proxy) { p.noLean = path != "lean" })
			half := dialKeepAlive(t, p)
			if _, err := half.get(10 * time.Second); err != nil { // kept alive, idle
				t.Fatal(err)
			}
			if _, err := io.WriteString(half.c, "GET /k HTTP/1.1\r\nHo"); err != nil {
				t.Fatal(err)
			}
			busy(t, p) // the proxy has read the partial head
			newcomer := dialKeepAlive(t, p)
			got := make(chan error, 1)
			go func() { _, err := newcomer.get(10 * time.Second); got <- err }()
			select {
			case err := <-got:
				t.Fatalf("the newcomer was served (%v) while the only slot was mid-request", err)
			case <-time.After(300 * time.Millisecond):
			}
			_ = half.c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(half.c, "st: h\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(half.br, &http.Request{Method: "GET"})
			if err != nil {
				t.Fatalf("the half-sent request was cut: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("half-sent request: %d", resp.StatusCode)
			}
		})
	}
}

// busy waits until p's listener holds no idle connection.
func busy(t *testing.T, p *Proxy) {
	t.Helper()
	idleCount(t, p, 0)
}

// idleCount waits until p's listener holds exactly n idle connections.
func idleCount(t *testing.T, p *Proxy, n int) {
	t.Helper()
	ln := p.ln.(*limitListener)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		ln.mu.Lock()
		got := len(ln.idle)
		ln.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections idle after 10 s; want %d", got, n)
		}
	}
}
