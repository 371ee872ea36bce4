package faults

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// h2cClient speaks HTTP/2 with prior knowledge and nothing else.
func h2cClient() *http.Client {
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &protos, Proxy: nil, DisableCompression: true}}
}

// h2cUpstream is a loopback server speaking h2c (and HTTP/1.1, so a proxy
// that fell back to it would be caught by the protocol it records).
func h2cUpstream(t *testing.T, h http.HandlerFunc) *url.URL {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &protos
	srv.Start()
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// h2cProxy starts a proxy speaking HTTP/2 to the h2c upstream h.
func h2cProxy(t *testing.T, h http.HandlerFunc, opts ...Option) *Proxy {
	t.Helper()
	return startProxy(t, append([]Option{WithUpstream(h2cUpstream(t, h)), WithUpstreamHTTP2()}, opts...)...)
}

// TestProxy_HTTP2TrailersBothWays: over h2c on both sides, the request's
// trailers reach the upstream with TE: trailers, and the upstream's
// trailers, announced or not, reach the client, as gRPC needs.
func TestProxy_HTTP2TrailersBothWays(t *testing.T) {
	t.Parallel()
	p := h2cProxy(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Trailer", "X-Announced")
		w.Header().Set("X-Up-Proto", r.Proto)
		w.Header().Set("X-Up-Te", r.Header.Get("Te"))
		w.Write([]byte("echo:" + string(b)))
		w.(http.Flusher).Flush()
		w.Header().Set("X-Announced", "a")
		w.Header().Set(http.TrailerPrefix+"X-Late", "l")
		w.Header().Set(http.TrailerPrefix+"X-Req-Trailer", r.Trailer.Get("X-Sum"))
	})
	req, err := http.NewRequestWithContext(t.Context(), "POST", p.URL()+"/svc/Method", io.NopCloser(strings.NewReader("msg")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Te", "trailers")
	req.Trailer = http.Header{"X-Sum": {"42"}}
	resp, err := h2cClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "echo:msg" || resp.ProtoMajor != 2 {
		t.Fatalf("%v %v %q, want echo:msg over HTTP/2", resp, err, body)
	}
	if got := resp.Header.Get("X-Up-Proto"); got != "HTTP/2.0" {
		t.Errorf("upstream saw %q, want HTTP/2.0", got)
	}
	if got := resp.Header.Get("X-Up-Te"); got != "trailers" {
		t.Errorf("upstream saw TE %q, want trailers", got)
	}
	for k, want := range map[string]string{"X-Announced": "a", "X-Late": "l", "X-Req-Trailer": "42"} {
		if got := resp.Trailer.Get(k); got != want {
			t.Errorf("trailer %s = %q, want %q (trailers %v)", k, got, want, resp.Trailer)
		}
	}
	if e := await(t, p, 1)[0]; e.Proto != "HTTP/2.0" || e.Status != 200 || e.UpstreamCalls != 1 {
		t.Errorf("journal %+v, want one HTTP/2.0 exchange answered 200", e)
	}
}

// TestProxy_HTTP2TrailersNoBody: an upstream's bodiless answer with
// trailers and no Content-Length (grpc-go's error answer) reaches the
// client without one: nginx's grpc_pass, told Content-Length: 0, drops the
// trailers and the grpc-status in them.
func TestProxy_HTTP2TrailersNoBody(t *testing.T) {
	t.Parallel()
	p := h2cProxy(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/grpc")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "9")
	})
	for name, c := range map[string]*http.Client{"h2c": h2cClient(), "http/1.1": client()} {
		resp, body, err := do(t, c, "POST", p.URL()+"/payments.v1.Payments/CreatePayment", "")
		if err != nil || resp.StatusCode != 200 || body != "" {
			t.Fatalf("%s: %v %v %q; want 200 with no body", name, resp, err, body)
		}
		if cl, ok := resp.Header["Content-Length"]; ok || resp.ContentLength >= 0 {
			t.Errorf("%s: Content-Length %q (%d); the upstream sent none", name, cl, resp.ContentLength)
		}
		if got := resp.Trailer.Get("Grpc-Status"); got != "9" {
			t.Errorf("%s: trailer Grpc-Status %q, want 9 (trailers %v)", name, got, resp.Trailer)
		}
	}
}

// TestProxy_HTTP2UpstreamOnly: an upstream that speaks nothing but h2c is
// reached by a proxy told so, from an HTTP/1.1 client too.
func TestProxy_HTTP2UpstreamOnly(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.Proto)) }))
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &protos
	srv.Start()
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	for name, opts := range map[string][]Option{"h2c": {WithUpstreamHTTP2()}, "default": nil} {
		p := startProxy(t, append([]Option{WithUpstream(u)}, opts...)...)
		resp, body, err := do(t, client(), "GET", p.URL()+"/", "")
		switch {
		case name == "h2c" && (err != nil || resp.StatusCode != 200 || body != "HTTP/2.0"):
			t.Errorf("%s: %v %v %q, want the upstream's HTTP/2.0", name, resp, err, body)
		case name == "default" && (err != nil || resp.StatusCode != http.StatusBadGateway):
			t.Errorf("%s: %v %v %q, want 502 from an HTTP/1.1 proxy to an h2c-only upstream", name, resp, err, body)
		}
	}
}

// TestProxy_HTTP2UpstreamTLS: to an https upstream the proxy told to speak
// HTTP/2 negotiates h2 by ALPN, whatever ALPN the caller's config named.
func TestProxy_HTTP2UpstreamTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(r.Proto)) }))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	for _, tt := range []struct {
		name string
		opts []Option
		want string
	}{
		{"h2", []Option{WithUpstreamHTTP2()}, "HTTP/2.0"},
		{"default", nil, "HTTP/1.1"},
	} {
		cfg := &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}}
		p := startProxy(t, append([]Option{WithUpstream(u), WithUpstreamTLS(cfg)}, tt.opts...)...)
		resp, body, err := do(t, h2cClient(), "GET", p.URL()+"/", "")
		if err != nil || resp.StatusCode != 200 || body != tt.want {
			t.Errorf("%s: %v %v %q, want the upstream to see %s", tt.name, resp, err, body, tt.want)
		}
	}
}

// TestProxy_SentAfterHandshake: Entry.Sent is when the request reached the
// upstream's connection, after the TLS handshake, which Forwarded precedes:
// an upstream slow to shake hands (100 ms here) had the request no earlier.
func TestProxy_SentAfterHandshake(t *testing.T) {
	t.Parallel()
	const slow = 100 * time.Millisecond
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		time.Sleep(slow)
		return nil, nil
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	p := startProxy(t, WithUpstream(u), WithUpstreamTLS(&tls.Config{RootCAs: roots}))
	if resp, _, err := do(t, client(), "GET", p.URL()+"/", ""); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v; want 200", resp, err)
	}
	e := await(t, p, 1)[0]
	if e.Sent.IsZero() || e.Sent.Sub(e.Forwarded) < slow || e.Answered.Before(e.Sent) {
		t.Errorf("forwarded +%s, sent +%s, answered +%s; want sent at least %s after forwarded, before the answer",
			e.Forwarded.Sub(e.Received), e.Sent.Sub(e.Received), e.Answered.Sub(e.Received), slow)
	}
}
