package faults

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Option configures NewProxy.
type Option func(*Proxy)

// WithUpstream sets the one server the proxy forwards to. nil (the default)
// makes the proxy a stand-in that answers itself (see WithStandIn).
func WithUpstream(u *url.URL) Option { return func(p *Proxy) { p.upstream = u } }

// WithSeed seeds every random decision of the proxy. Without it a seed is
// drawn at random; either way Seed reports it and journal entries carry it.
func WithSeed(seed uint64) Option {
	return func(p *Proxy) { p.seed, p.seeded = seed, true }
}

// WithJournal records exchanges into j, which may be shared with other
// proxies. Without it the proxy has a journal of its own.
func WithJournal(j *Journal) Option { return func(p *Proxy) { p.journal = j } }

// WithMirror records every exchange into m too, after the proxy's own
// journal: a run-wide journal that several proxies' journals feed, each
// entry numbered in m in the order it finished there.
func WithMirror(m *Journal) Option { return func(p *Proxy) { p.mirror = m } }

// WithIDPrefix puts prefix before the proxy's entry IDs ("c2-front-17"), so
// entries of proxies with the same side stay apart in one journal.
func WithIDPrefix(prefix string) Option { return func(p *Proxy) { p.idPrefix = prefix } }

// WithSide names the proxy in journal entries and metrics, e.g. "front" (the
// default) or "dependency".
func WithSide(side string) Option { return func(p *Proxy) { p.side = side } }

// WithHeaders replaces the request headers journaled (default
// DefaultRequestHeaders). A name ending in * matches a prefix.
func WithHeaders(names ...string) Option {
	return func(p *Proxy) { p.reqHeaders = newHeaderPicker(names) }
}

// WithResponseHeaders replaces the response headers journaled (default
// DefaultResponseHeaders). A name ending in * matches a prefix.
func WithResponseHeaders(names ...string) Option {
	return func(p *Proxy) { p.respHeaders = newHeaderPicker(names) }
}

// WithClock sets the clock for timestamps and fault waits (default SystemClock).
func WithClock(c Clock) Option { return func(p *Proxy) { p.clock = c } }

// WithStandIn sets the answer a stand-in gives when no rule handles a
// request, and what Exchange.Forward returns in stand-in mode. The default is
// 200 with body {} and Content-Type application/json.
func WithStandIn(r Respond) Option { return func(p *Proxy) { p.standIn = r } }

// WithLimits bounds what clients can make the proxy hold; zero fields keep
// their defaults.
func WithLimits(l Limits) Option { return func(p *Proxy) { p.limits = l.withDefaults() } }

// WithTransport replaces the round tripper used to reach the upstream, e.g.
// for TLS settings or HTTP/2; every request then goes through it, none
// through the lean path. The default never uses environment proxies and
// never decompresses.
func WithTransport(rt http.RoundTripper) Option { return func(p *Proxy) { p.transport = rt } }

// WithLogger receives the HTTP server's own errors (default: discarded).
func WithLogger(l *slog.Logger) Option { return func(p *Proxy) { p.log = l } }

// WithRules installs rules at construction; NewProxy fails if one is invalid.
func WithRules(rules ...Rule) Option {
	return func(p *Proxy) { p.initial = append(p.initial, rules...) }
}

// Limits bounds memory and time per client so floods and slow clients
// cannot exhaust the proxy. None of them limits how long a fault may hold a
// request: blackhole and throttle stay legitimate.
type Limits struct {
	// MaxHeaderBytes caps request header size (default 64 KiB).
	MaxHeaderBytes int
	// MaxBodyBytes caps the request body, which is buffered so it can be
	// hashed and duplicated; larger bodies get 413 (default 8 MiB).
	MaxBodyBytes int64
	// ReadHeaderTimeout bounds reading request headers (default 10 s).
	ReadHeaderTimeout time.Duration
	// BodyReadTimeout bounds reading a request body; 408 after (default 30 s).
	BodyReadTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long (default 120 s).
	IdleTimeout time.Duration
	// WriteStallTimeout drops a client that accepts no response bytes for
	// this long (default 30 s).
	WriteStallTimeout time.Duration
	// MaxConns caps concurrent client connections (default 4096). When all
	// are taken, a new client gets the slot of the connection idle the
	// longest; with none idle, it waits to be accepted.
	MaxConns int
	// DialTimeout bounds connecting to the upstream (default 5 s).
	DialTimeout time.Duration
	// MaxConcurrentStreams caps the HTTP/2 streams one client connection
	// has open at once (default 250); more are refused (RST_STREAM
	// REFUSED_STREAM), which a client may retry.
	MaxConcurrentStreams int
}

func (l Limits) withDefaults() Limits {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = 64 << 10
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = 8 << 20
	}
	if l.MaxConns <= 0 {
		l.MaxConns = 4096
	}
	if l.MaxConcurrentStreams <= 0 {
		l.MaxConcurrentStreams = 250
	}
	def(&l.ReadHeaderTimeout, 10*time.Second)
	def(&l.BodyReadTimeout, 30*time.Second)
	def(&l.IdleTimeout, 120*time.Second)
	def(&l.WriteStallTimeout, 30*time.Second)
	def(&l.DialTimeout, 5*time.Second)
	return l
}
