package faults

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

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

// logSink hands each log record's message and error to a channel, and
// drops the record when the channel is full: a proxy logging after the test
// stopped reading must not block in Write and hang its own Close.
type logSink chan string

func (s logSink) Write(b []byte) (int, error) {
	select {
	case s <- string(b):
	default:
	}
	return len(b), nil
}

func TestProxy_TLSRefusesHTTP2Only(t *testing.T) {
	t.Parallel()
	sink := make(logSink, 16)
	p, a := tlsProxy(t, WithLogger(slog.New(slog.NewTextHandler(sink, nil))))
	_, _, err := do(t, tlsClient(a.Pool(), "h2"), "GET", p.URL()+"/", "")
	if err == nil {
		t.Fatal("an h2-only client got an answer over TLS")
	}
	// The server names why (the client saw only an alert). Bounded: a
	// message that never comes fails here, not at go test's timeout.
	for named := false; !named; {
		select {
		case line := <-sink:
			named = strings.Contains(line, "not supported yet")
		case <-time.After(10 * time.Second):
			t.Fatal("the proxy never logged why it refused the h2-only client")
		}
	}
	resp, _, err := do(t, tlsClient(a.Pool(), "h2", "http/1.1"), "GET", p.URL()+"/", "")
	if err != nil || resp.Proto != "HTTP/1.1" || resp.TLS.NegotiatedProtocol != "http/1.1" {
		t.Fatalf("a client offering h2 and http/1.1: %v %v, want HTTP/1.1 by ALPN", resp, err)
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
