package launch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/targets"
)

// TestWaitHealthy_keepsLastStatus: a service that answers 503 and then hangs
// until the wait's deadline cuts the probe is reported with its 503, not only
// with the deadline (the cut attempt used to overwrite the status).
func TestWaitHealthy_keepsLastStatus(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	err := WaitHealthy(context.Background(), srv.URL+"/healthz", 300*time.Millisecond)
	var ue *UnhealthyError
	if !errors.As(err, &ue) {
		t.Fatalf("WaitHealthy() = %v; want an *UnhealthyError", err)
	}
	if ue.LastStatus != http.StatusServiceUnavailable || ue.LastErr == nil {
		t.Errorf("LastStatus, LastErr = %d, %v; want 503 and the cut attempt's error", ue.LastStatus, ue.LastErr)
	}
	if !strings.Contains(err.Error(), "last status: 503") {
		t.Errorf("error %q does not name the 503", err)
	}
}

// TestWaitHealthyTLS: an https service with a private certificate is
// healthy under the config that trusts it, and unhealthy under the system
// roots (the kind compose launcher used to wait so, whatever service.ca said).
func TestWaitHealthyTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	if err := WaitHealthyTLS(context.Background(), srv.URL+"/healthz", 5*time.Second, &tls.Config{RootCAs: roots}, ""); err != nil {
		t.Errorf("WaitHealthyTLS with the service's CA = %v, want healthy", err)
	}
	if err := WaitHealthyTLS(context.Background(), srv.URL+"/healthz", 300*time.Millisecond, nil, ""); !errors.Is(err, ErrUnhealthy) {
		t.Errorf("WaitHealthyTLS with the system roots = %v, want unhealthy", err)
	}
}

// TestWaitHealthy_h2c: a service that speaks HTTP/2 alone, in the clear,
// is healthy to a wait told so (service.protocol: h2c), and never to one
// speaking HTTP/1.1.
func TestWaitHealthy_h2c(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	var only2 http.Protocols
	only2.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &only2
	srv.Start()
	defer srv.Close()
	if err := waitHealthy(t.Context(), srv.URL+"/healthz", 5*time.Second, nil, nil, targets.ProtocolH2C); err != nil {
		t.Errorf("h2c wait: %v, want healthy", err)
	}
	if err := waitHealthy(t.Context(), srv.URL+"/healthz", 300*time.Millisecond, nil, nil, ""); err == nil {
		t.Error("HTTP/1.1 wait: healthy, want an unhealthy error")
	}
}
