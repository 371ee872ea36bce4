package faults

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/resilcheck/resilcheck/internal/authority"
)

// tlsProxy starts a proxy terminating TLS with a leaf of a fresh authority.
func tlsProxy(t *testing.T, opts ...Option) (*Proxy, *authority.Authority) {
	t.Helper()
	a, err := authority.New()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := a.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	return startProxy(t, append([]Option{WithTLS(leaf)}, opts...)...), a
}

// tlsClient trusts roots only (nil: the system's) and offers protos in ALPN.
func tlsClient(roots *x509.CertPool, protos ...string) *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true,
		TLSClientConfig: &tls.Config{RootCAs: roots, NextProtos: protos}}}
}

func TestProxy_TLSUntrustedClient(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p, _ := tlsProxy(t, WithUpstream(up.url(t)))
	if !strings.HasPrefix(p.URL(), "https://") {
		t.Fatalf("URL() = %s, want https", p.URL())
	}
	other, _ := authority.New()
	for name, c := range map[string]*http.Client{"system roots": tlsClient(nil), "another CA": tlsClient(other.Pool())} {
		_, _, err := do(t, c, "GET", p.URL()+"/", "")
		var ua x509.UnknownAuthorityError
		if !errors.As(err, &ua) {
			t.Errorf("%s: got %v, want the handshake to fail on an unknown authority", name, err)
		}
	}
	if resp, _, err := do(t, client(), "GET", strings.Replace(p.URL(), "https", "http", 1)+"/", ""); err == nil && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain HTTP to a TLS proxy: %d, want 400 (crypto/tls's answer to a plaintext request)", resp.StatusCode)
	}
	if up.calls.Load() != 0 {
		t.Fatalf("upstream saw %d calls through failed handshakes", up.calls.Load())
	}
}

func TestProxy_TLSTrustedClientMeetsFaults(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p, a := tlsProxy(t, WithUpstream(up.url(t)), WithRules(
		Rule{Name: "fail-first", Match: Match{First: 1}, Fault: Abort{Status: 503}},
		Rule{Name: "rst", Match: Match{Path: "/reset"}, Fault: Reset{}}))
	c := tlsClient(a.Pool())
	resp, _, err := do(t, c, "POST", p.URL()+"/charges", "c1")
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("first call: %v %v, want the injected 503", resp, err)
	}
	resp, body, err := do(t, c, "POST", p.URL()+"/charges", "c1")
	if err != nil || resp.StatusCode != 200 || body != "echo:c1" || resp.TLS == nil {
		t.Fatalf("second call: %v %v %q, want the upstream's 200 over TLS", resp, err, body)
	}
	if _, _, err := do(t, c, "GET", p.URL()+"/reset", ""); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("reset over TLS: %v, want connection reset", err)
	}
	es := await(t, p, 3)
	if es[0].Status != 503 || es[0].Rule != "fail-first" || es[1].Status != 200 || es[1].BodySHA256 != es[0].BodySHA256 {
		t.Fatalf("journal %+v", es[:2])
	}
	if up.calls.Load() != 1 {
		t.Fatalf("upstream saw %d calls, want 1", up.calls.Load())
	}
}

// TestProxy_TLSOffersHTTP2: ALPN picks h2 for a client that offers it
// (alone or first) and http/1.1 for one that offers only that; each
// exchange is journaled with its protocol, and a reset on an h2 stream
// resets that stream, not the connection other streams ride.
func TestProxy_TLSOffersHTTP2(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, nil)
	p, a := tlsProxy(t, WithUpstream(up.url(t)), WithRules(Rule{Name: "rst", Match: Match{Path: "/reset"}, Fault: Reset{}}))
	tests := []struct {
		name   string
		offers []string
		proto  string
	}{
		{"h2 only", []string{"h2"}, "HTTP/2.0"},
		{"h2 first", []string{"h2", "http/1.1"}, "HTTP/2.0"},
		{"http/1.1 only", []string{"http/1.1"}, "HTTP/1.1"},
	}
	for _, tt := range tests {
		c := tlsClient(a.Pool(), tt.offers...)
		// A custom TLS config turns h2 off unless forced; forcing adds h2 to ALPN.
		c.Transport.(*http.Transport).ForceAttemptHTTP2 = slices.Contains(tt.offers, "h2")
		resp, body, err := do(t, c, "POST", p.URL()+"/", "x")
		if err != nil || resp.Proto != tt.proto || body != "echo:x" {
			t.Fatalf("%s: %v %v %q, want %s", tt.name, resp, err, body, tt.proto)
		}
	}
	c := tlsClient(a.Pool(), "h2")
	c.Transport.(*http.Transport).ForceAttemptHTTP2 = true
	_, _, err := do(t, c, "GET", p.URL()+"/reset", "")
	if err == nil || !strings.Contains(err.Error(), "stream error") {
		t.Fatalf("reset on h2: %v, want a stream error (RST_STREAM)", err)
	}
	if resp, _, err := do(t, c, "GET", p.URL()+"/after", ""); err != nil || resp.ProtoMajor != 2 {
		t.Fatalf("after the reset: %v %v, want another h2 answer", resp, err)
	}
	var protos []string
	es := await(t, p, 5)
	for _, e := range es {
		protos = append(protos, e.Proto)
	}
	if want := []string{"HTTP/2.0", "HTTP/2.0", "HTTP/1.1", "HTTP/2.0", "HTTP/2.0"}; !slices.Equal(protos, want) {
		t.Fatalf("journaled protocols %q, want %q", protos, want)
	}
	if es[3].Conn != es[4].Conn {
		t.Errorf("the reset stream rode connection %d and the next request %d: the reset cost the connection", es[3].Conn, es[4].Conn)
	}
}

func TestProxy_TLSUpstream(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secure")) }))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	tests := []struct {
		name   string
		cfg    *tls.Config
		status int
	}{
		{"its CA", &tls.Config{RootCAs: roots}, 200},
		{"system roots", nil, http.StatusBadGateway},
		{"insecure", &tls.Config{InsecureSkipVerify: true}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProxy(t, WithUpstream(u), WithUpstreamTLS(tt.cfg))
			resp, _, err := do(t, client(), "GET", p.URL()+"/", "")
			if err != nil || resp.StatusCode != tt.status {
				t.Fatalf("%v %v, want %d", resp, err, tt.status)
			}
		})
	}
}
