package faults

import (
	"crypto/tls"
	"net"
)

// WithTLS makes the proxy serve TLS with cert: clients connect over https,
// and rules act on the decrypted exchange, each HTTP/2 stream on its own.
// ALPN offers h2 and http/1.1. Such a proxy serves every connection through
// net/http, never the plain HTTP/1.1 lean path.
func WithTLS(cert tls.Certificate) Option {
	return func(p *Proxy) { p.serverTLS = serverTLSConfig(cert) }
}

// WithUpstreamTLS sets how the proxy verifies an https upstream (RootCAs
// for a private CA, or InsecureSkipVerify); nil (the default) verifies it
// against the system roots. It has no effect on a plain http upstream, nor
// with WithTransport, whose round tripper has its own.
func WithUpstreamTLS(cfg *tls.Config) Option { return func(p *Proxy) { p.upstreamTLS = cfg } }

// serverTLSConfig offers h2 first in ALPN, as net/http's own TLS server
// does, so a client that speaks both gets HTTP/2; the server's Protocols
// must include HTTP2 for net/http to take the h2 connections.
func serverTLSConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"h2", "http/1.1"},
		MinVersion:   tls.VersionTLS12,
	}
}

// rawConn is the connection under a TLS one, so a lost answer kills the
// socket without a graceful close_notify; other connections are their own.
func rawConn(c net.Conn) net.Conn {
	if tc, ok := c.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return c
}
