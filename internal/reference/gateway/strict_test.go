package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestGateway_duplicateIdempotencyKey: two Idempotency-Key fields are a 400
// at the gateway, as at the service; forwarding one of them would let the
// service act on a key the client did not unambiguously send.
func TestGateway_duplicateIdempotencyKey(t *testing.T) {
	t.Parallel()
	svc := newService(t, created)
	front := serve(t, newGateway(t, svc.URL))
	for _, keys := range [][]string{{"k1", "k2"}, {"k1", "k1"}} {
		req, err := http.NewRequest(http.MethodPost, front.URL+"/v1/payments", strings.NewReader(`{"amount":100,"currency":"EUR"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Tenant-ID", "t1")
		req.Header["Idempotency-Key"] = keys
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("keys %q: status %d, %s; want 400 problem", keys, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if n := len(svc.requests()); n != 0 {
		t.Errorf("the service saw %d requests; want none", n)
	}
}
