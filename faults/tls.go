package faults

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
)

// ErrHTTP2OnlyClient is the handshake error of a TLS client that offers
// HTTP/2 and not HTTP/1.1 in ALPN: the proxy speaks HTTP/1.1 over TLS for
// now; HTTP/2 over TLS is a later slice of issue 28.
var ErrHTTP2OnlyClient = errors.New("faults: the client offers only HTTP/2 over TLS (ALPN h2); this proxy speaks http/1.1 over TLS, HTTP/2 over TLS is not supported yet")

// WithTLS makes the proxy serve TLS with cert: clients connect over https,
// and rules act on the decrypted HTTP/1.1 exchange. ALPN offers http/1.1
// only. Such a proxy serves every connection through net/http, never the
// plain HTTP/1.1 lean path.
func WithTLS(cert tls.Certificate) Option {
	return func(p *Proxy) { p.serverTLS = serverTLSConfig(cert) }
}

// WithUpstreamTLS sets how the proxy verifies an https upstream (RootCAs
// for a private CA, or InsecureSkipVerify); nil (the default) verifies it
// against the system roots. It has no effect on a plain http upstream, nor
// with WithTransport, whose round tripper has its own.
func WithUpstreamTLS(cfg *tls.Config) Option { return func(p *Proxy) { p.upstreamTLS = cfg } }

// serverTLSConfig offers http/1.1 alone in ALPN, and refuses by name a
// client that will speak nothing but h2, rather than let it fail on a bare
// no_application_protocol alert.
func serverTLSConfig(cert tls.Certificate) *tls.Config {
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"http/1.1"},
		MinVersion:   tls.VersionTLS12,
	}
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		if slices.Contains(hello.SupportedProtos, "h2") && !slices.Contains(hello.SupportedProtos, "http/1.1") {
			return nil, fmt.Errorf("%w (from %s)", ErrHTTP2OnlyClient, hello.Conn.RemoteAddr())
		}
		return nil, nil
	}
	return cfg
}

// rawConn is the connection under a TLS one, so a lost answer kills the
// socket without a graceful close_notify; other connections are their own.
func rawConn(c net.Conn) net.Conn {
	if tc, ok := c.(*tls.Conn); ok {
		return tc.NetConn()
	}
	return c
}
