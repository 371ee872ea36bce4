package faults

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// upstream is a real loopback server that counts requests and echoes what
// it saw in headers.
type upstream struct {
	*httptest.Server
	calls atomic.Int64
	mu    sync.Mutex
	seen  []*http.Request
}

func newUpstream(t *testing.T, h http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{}
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Upstream-Path", r.URL.Path)
			w.Header().Set("Retry-After", "7")
			b, _ := io.ReadAll(r.Body)
			w.Write([]byte("echo:" + string(b)))
		}
	}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.calls.Add(1)
		u.mu.Lock()
		u.seen = append(u.seen, r)
		u.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) url(t *testing.T) *url.URL {
	t.Helper()
	pu, err := url.Parse(u.URL)
	if err != nil {
		t.Fatal(err)
	}
	return pu
}

// startProxy starts a proxy on a loopback port and closes it at cleanup.
func startProxy(t *testing.T, opts ...Option) *Proxy {
	t.Helper()
	p, err := NewProxy(append([]Option{WithSeed(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// client returns an HTTP client that never retries through a proxy env.
func client() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true}}
}

func do(t *testing.T, c *http.Client, method, u, body string, hdr ...string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// memNet is an in-memory network for tests inside a synctest bubble.
type memNet struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newMemNet() *memNet { return &memNet{conns: make(chan net.Conn), done: make(chan struct{})} }

func (m *memNet) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *memNet) Close() error   { m.once.Do(func() { close(m.done) }); return nil }
func (m *memNet) Addr() net.Addr { return memAddr{} }

func (m *memNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	a, b := net.Pipe()
	select {
	case m.conns <- b:
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-m.done:
		return nil, net.ErrClosed
	}
}

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem:80" }

// memProxy serves p on an in-memory network and returns a client for it;
// call the returned stop before the bubble ends.
func memProxy(t *testing.T, p *Proxy) (*http.Client, func()) {
	t.Helper()
	mn := newMemNet()
	done := make(chan struct{})
	go func() { _ = p.Serve(mn); close(done) }()
	tr := &http.Transport{DialContext: mn.dial, DisableCompression: true}
	return &http.Client{Transport: tr}, func() {
		tr.CloseIdleConnections()
		p.Close()
		<-done
	}
}

// await waits (boundedly) for n journal entries of p.
func await(t *testing.T, p *Proxy, n int) []Entry {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	es, err := p.Journal().Await(ctx, n)
	if err != nil {
		t.Fatalf("journal has %d entries; want %d", len(es), n)
	}
	return es
}
