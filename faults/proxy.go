package faults

import (
	"context"
	cryptorand "crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy is a fault-injecting HTTP reverse proxy to one upstream, or a
// stand-in that answers itself. It serves HTTP/1.1 and HTTP/2 (h2c in the
// clear, h2 by ALPN over TLS). Its methods are safe for concurrent use.
type Proxy struct {
	upstream    *url.URL
	seed        uint64
	seeded      bool
	side        string
	journal     *Journal
	mirror      *Journal // see WithMirror; nil = none
	idPrefix    string   // see WithIDPrefix
	clock       Clock
	reqHeaders  headerPicker
	respHeaders headerPicker
	standIn     Respond
	standInGRPC func([]byte) ([]byte, error) // see WithGRPCStandIn; nil = plain HTTP
	limits      Limits
	transport   http.RoundTripper
	serverTLS   *tls.Config // see WithTLS; nil = plain
	upstreamTLS *tls.Config // see WithUpstreamTLS; nil = system roots
	upstreamH2  bool        // see WithUpstreamHTTP2
	log         *slog.Logger
	initial     []Rule
	noLean      bool          // tests: serve everything through net/http
	watchDelay  time.Duration // tests: 0 is the lean path's watchDelay

	rules   *Rules
	metrics *metrics
	lean    *leanServer // plain HTTP/1.1 pass-through skips net/http; nil: srv serves all
	ctx     context.Context
	cancel  context.CancelFunc
	srv     *http.Server
	connSeq atomic.Uint64
	exSeq   atomic.Uint64

	mu     sync.Mutex
	ln     net.Listener
	closed bool
	ready  chan struct{} // closed once a listener is set
}

var _ http.Handler = (*Proxy)(nil)

// NewProxy returns a proxy configured by opts. It does not listen until
// Serve or Start is called.
func NewProxy(opts ...Option) (*Proxy, error) {
	p := &Proxy{
		side:        "front",
		clock:       SystemClock(),
		reqHeaders:  newHeaderPicker(DefaultRequestHeaders()),
		respHeaders: newHeaderPicker(DefaultResponseHeaders()),
		standIn:     Respond{Status: http.StatusOK, Headers: map[string]string{"Content-Type": "application/json"}, Body: "{}"},
		limits:      Limits{}.withDefaults(),
		ready:       make(chan struct{}),
	}
	for _, o := range opts {
		o(p)
	}
	if err := p.init(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Proxy) init() error {
	if u := p.upstream; u != nil && (u.Host == "" || (u.Scheme != "http" && u.Scheme != "https")) {
		return fmt.Errorf("faults: upstream %q must be an absolute http or https URL", u)
	}
	if err := validateFault(p.standIn); err != nil {
		return fmt.Errorf("faults: stand-in answer: %w", err)
	}
	if !p.seeded {
		var b [8]byte
		_, _ = cryptorand.Read(b[:])
		p.seed = binary.LittleEndian.Uint64(b[:])
	}
	if p.journal == nil {
		p.journal = NewJournal(WithJournalClock(p.clock))
	}
	p.journal.noteSeed(p.side, p.seed)
	if p.log == nil {
		p.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// The lean path speaks plain HTTP/1.1 itself, so it steps aside when
	// either side needs TLS or the caller chose its own transport.
	if p.upstream != nil && p.upstream.Scheme == "http" && p.transport == nil && p.serverTLS == nil && !p.upstreamH2 && !p.noLean {
		p.lean = newLeanServer(p)
	}
	if p.transport == nil {
		p.transport = newTransport(p.limits, p.upstreamTLS, p.upstreamH2, p.upstream != nil && p.upstream.Scheme == "https")
	}
	p.rules = newRules(p.seed)
	if err := p.rules.Replace(p.initial...); err != nil {
		return err
	}
	p.metrics = newMetrics(p)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.srv = p.newServer()
	return nil
}

func newTransport(l Limits, tlsConfig *tls.Config, h2, tlsUpstream bool) *http.Transport {
	return &http.Transport{
		Protocols:           upstreamProtocols(h2, tlsUpstream),
		TLSClientConfig:     upstreamTLSConfig(tlsConfig, h2),
		Proxy:               nil, // never route through HTTP_PROXY: we are the proxy
		DialContext:         (&net.Dialer{Timeout: l.DialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // pass bodies through byte for byte
		WriteBufferSize:     32 << 10,
		ReadBufferSize:      32 << 10,
	}
}

func (p *Proxy) newServer() *http.Server {
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetHTTP2(p.serverTLS != nil)            // h2 by ALPN where the proxy terminates TLS
	protos.SetUnencryptedHTTP2(p.serverTLS == nil) // h2c (prior knowledge) in the clear
	return &http.Server{
		Handler:           p,
		Protocols:         &protos,
		MaxHeaderBytes:    p.limits.MaxHeaderBytes, // also HTTP/2's SETTINGS_MAX_HEADER_LIST_SIZE
		HTTP2:             http2Config(p.limits),
		ReadHeaderTimeout: p.limits.ReadHeaderTimeout,
		IdleTimeout:       p.limits.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return p.ctx },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if hc, ok := c.(*handedConn); ok {
				return context.WithValue(ctx, connKey{}, hc.id)
			}
			return context.WithValue(ctx, connKey{}, p.connSeq.Add(1))
		},
		ConnState: func(c net.Conn, s http.ConnState) {
			switch _, handed := c.(*handedConn); {
			case s == http.StateIdle:
				_ = c.SetWriteDeadline(time.Time{}) // the stall deadline is per response
				markIdle(c, true)
			case s == http.StateNew && !handed: // the listener marked it idle already
			case s == http.StateNew, s == http.StateActive, s == http.StateHijacked:
				markIdle(c, false) // a handed connection has its request in hand
			}
		},
	}
}

type connKey struct{}

// hostPort is the address to dial for u, with the scheme's default port.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Seed returns the seed behind every random decision of the proxy.
func (p *Proxy) Seed() uint64 { return p.seed }

// Side returns the proxy's side name.
func (p *Proxy) Side() string { return p.side }

// Journal returns the journal the proxy records into.
func (p *Proxy) Journal() *Journal { return p.journal }

// Rules returns the proxy's live rule set.
func (p *Proxy) Rules() *Rules { return p.rules }

// Upstream returns the upstream URL, or nil for a stand-in.
func (p *Proxy) Upstream() *url.URL { return p.upstream }

// URL returns the proxy's base URL, e.g. "http://127.0.0.1:41234" (https
// with WithTLS), or "" if it is not listening yet.
func (p *Proxy) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return ""
	}
	if p.serverTLS != nil {
		return "https://" + p.ln.Addr().String()
	}
	return "http://" + p.ln.Addr().String()
}

// Serve accepts connections on l until Close or Shutdown, then returns nil.
// A proxy serves one listener in its lifetime.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	switch {
	case p.closed:
		p.mu.Unlock()
		l.Close()
		return ErrClosed
	case p.ln != nil:
		p.mu.Unlock()
		return errors.New("faults: proxy is already serving")
	}
	p.ln = newLimitListener(l, p.limits.MaxConns)
	close(p.ready)
	p.mu.Unlock()
	var err error
	switch {
	case p.lean != nil:
		err = p.lean.serve(p.ln)
	case p.serverTLS != nil:
		err = p.srv.Serve(tls.NewListener(p.ln, p.serverTLS))
	default:
		err = p.srv.Serve(p.ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Start listens on addr (e.g. "127.0.0.1:0"), serves in the background and
// returns the proxy's URL.
func (p *Proxy) Start(addr string) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("faults: listen: %w", err)
	}
	go func() { _ = p.Serve(l) }()
	<-p.ready
	return p.URL(), nil
}

// Shutdown stops accepting connections and waits until in-flight exchanges
// finish or ctx ends; then it cuts the rest (held faults return at once)
// and closes every connection. It returns ctx's error if it had to cut.
func (p *Proxy) Shutdown(ctx context.Context) error {
	p.markClosed()
	var wg sync.WaitGroup
	var err error
	wg.Go(func() { err = p.srv.Shutdown(ctx) })
	lerr := p.lean.drain(ctx)
	wg.Wait()
	p.cancel()
	_ = p.srv.Close()
	p.lean.kill()
	p.closeIdle()
	if err == nil {
		err = lerr
	}
	return err
}

// Close ends every in-flight exchange and closes the listener and all
// connections at once.
func (p *Proxy) Close() error {
	p.markClosed()
	p.cancel()
	err := p.srv.Close()
	p.lean.kill()
	p.closeIdle()
	return err
}

// markClosed stops accepting: the net/http server closes its own listener,
// the lean path's is closed here.
func (p *Proxy) markClosed() {
	p.mu.Lock()
	p.closed = true
	ln := p.ln
	p.mu.Unlock()
	if p.lean != nil && ln != nil {
		_ = ln.Close()
	}
	p.lean.stop()
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (p *Proxy) closeIdle() {
	if t, ok := p.transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
}

// record journals e, and mirrors it when the proxy has a mirror.
func (p *Proxy) record(e Entry) {
	p.journal.Record(e)
	if p.mirror != nil {
		p.mirror.Record(e)
	}
}
