package faults

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// TestProxy_neverReplays checks the proxy delivers a request once even when
// the upstream kills the reused connection it arrived on: net/http replays
// such requests by itself when they carry an Idempotency-Key.
func TestProxy_neverReplays(t *testing.T) {
	t.Parallel()
	var deliveries atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Idempotency-Key") == "warm" {
			w.WriteHeader(http.StatusCreated) // leaves an idle connection to reuse
			return
		}
		deliveries.Add(1)
		conn, _, _ := http.NewResponseController(w).Hijack()
		_ = conn.Close()
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	p, err := NewProxy(WithUpstream(u))
	if err != nil {
		t.Fatal(err)
	}
	base, err := p.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	post := func(key string) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/charges", strings.NewReader(`{"amount":1}`))
		req.Header.Set("Idempotency-Key", key)
		req.GetBody = nil // the test's own client must not replay either
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", key, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	post("warm")
	if got := post("k"); got != http.StatusBadGateway {
		t.Errorf("status = %d; want 502 for a connection the upstream closed", got)
	}
	if n := deliveries.Load(); n != 1 {
		t.Errorf("upstream saw %d deliveries; want exactly 1", n)
	}
}
