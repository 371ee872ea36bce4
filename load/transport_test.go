package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// closingServer answers its first request, then reads the second one whole
// (so it is applied) and closes the connection without an answer, the way
// a server restarting behind a keep-alive connection does.
func closingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		if n.Add(1) != 2 {
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func post(c *http.Client, url, body string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, rd)
	req.Header.Set("Idempotency-Key", "k-1")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// TestNoReplay_RoundTrip proves the hazard (plain net/http applies a keyed
// POST twice when a reused connection closes) and that the attack client
// sends it once, with or without a body.
func TestNoReplay_RoundTrip(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"amount":1}`, ""} {
		srv, n := closingServer(t)
		plain := &http.Client{Transport: &http.Transport{Proxy: nil}}
		_ = post(plain, srv.URL, body)
		if err := post(plain, srv.URL, body); err != nil || n.Load() != 3 {
			t.Fatalf("body %q: plain net/http: err %v, server applied %d requests; the replay hazard this guards against is gone?", body, err, n.Load())
		}

		srv, n = closingServer(t)
		c := newClient(5*time.Second, 4)
		_ = post(c, srv.URL, body)
		err := post(c, srv.URL, body)
		if err == nil || n.Load() != 2 {
			t.Fatalf("body %q: load client: err %v, server applied %d requests; want an error and 2 (no replay)", body, err, n.Load())
		}
	}
}
