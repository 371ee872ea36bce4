package faults

import (
	"crypto/tls"
	"net/http"
)

// WithUpstreamHTTP2 makes the proxy speak HTTP/2 only to its upstream: h2c
// with prior knowledge to an http upstream, h2 by ALPN to an https one. The
// default is HTTP/1.1. Every request then goes through net/http, none
// through the lean path, which speaks HTTP/1.1 to the upstream itself. A
// transport given by WithTransport speaks what it was built to: this option
// then only keeps TE: trailers on the requests.
func WithUpstreamHTTP2() Option { return func(p *Proxy) { p.upstreamH2 = true } }

// upstreamProtocols is what the transport may speak to the upstream: HTTP/1.1
// alone by default (with a custom dialer net/http would not try h2 anyway,
// but saying so keeps it from ever upgrading by ALPN), or HTTP/2 alone,
// cleartext or over TLS as the upstream's scheme says.
func upstreamProtocols(h2, tlsUpstream bool) *http.Protocols {
	var protos http.Protocols
	switch {
	case !h2:
		protos.SetHTTP1(true)
	case tlsUpstream:
		protos.SetHTTP2(true)
	default:
		protos.SetUnencryptedHTTP2(true)
	}
	return &protos
}

// upstreamTLSConfig is cfg, cloned with h2 in ALPN when the upstream speaks
// HTTP/2, since a caller's NextProtos would otherwise decide.
func upstreamTLSConfig(cfg *tls.Config, h2 bool) *tls.Config {
	if !h2 || cfg == nil {
		return cfg
	}
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	return cfg
}
