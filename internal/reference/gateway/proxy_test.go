package gateway_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/internal/reference/gateway"
)

func TestNew_Validation(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]gateway.Option{
		"no service URL":   nil,
		"relative URL":     {gateway.WithServiceURL("/payments")},
		"ftp URL":          {gateway.WithServiceURL("ftp://127.0.0.1")},
		"zero rate":        {gateway.WithServiceURL(noService), gateway.WithRateLimit(0, 5)},
		"rate above burst": {gateway.WithServiceURL(noService), gateway.WithRateLimit(10, 5)},
		"zero concurrency": {gateway.WithServiceURL(noService), gateway.WithMaxConcurrent(0)},
		"zero budget":      {gateway.WithServiceURL(noService), gateway.WithMaxBudget(0)},
		"zero tenants":     {gateway.WithServiceURL(noService), gateway.WithMaxTenants(0)},
		"nil clock":        {gateway.WithServiceURL(noService), gateway.WithClock(nil)},
	} {
		if _, err := gateway.New(opts...); !errors.Is(err, gateway.ErrInvalidOption) {
			t.Errorf("%s: New error %v, want ErrInvalidOption", name, err)
		}
	}
}

// realSlack is the tolerance on X-RateLimit-Reset for responses timed on
// the real clock, which a busy machine may deliver late.
const realSlack = 5 * time.Second

func send(t *testing.T, method, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// wantProblem checks an error response is a non-empty problem+json with the
// status in its body, and carries the rate-limit fields.
func wantProblem(t *testing.T, resp *http.Response, body string, status int) {
	t.Helper()
	var p gateway.Problem
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal([]byte(body), &p) != nil || p.Status != status || p.Type == "" || p.Title == "" || p.Detail == "" {
		t.Fatalf("got %d %q %s; want a %d problem", resp.StatusCode, resp.Header.Get("Content-Type"), body, status)
	}
	if _, err := parseLimitsSlack(resp.Header, time.Now(), realSlack); err != nil {
		t.Fatalf("%d: rate-limit fields: %v", status, err)
	}
}

func TestGateway_ServeHTTP(t *testing.T) {
	t.Parallel()
	svc := newService(t, created)
	gw := serve(t, newGateway(t, svc.URL))
	resp, body := send(t, "GET", gw.URL+"/healthz", "", nil)
	if resp.StatusCode != 200 || body != `{"status":"ok"}` {
		t.Fatalf("healthz: %d %s", resp.StatusCode, body)
	}
	if _, err := parseLimitsSlack(resp.Header, time.Now(), realSlack); err != nil {
		t.Fatalf("healthz: %v", err)
	}
	for _, tc := range []struct {
		method, path string
		hdr          map[string]string
		status       int
	}{
		{"GET", "/nope", nil, 404},
		{"GET", "/v1/payments/a/b", nil, 404},
		{"GET", "/v1/payments", nil, 405},
		{"DELETE", "/v1/payments/pay_1", nil, 405},
		{"POST", "/v1/payments", map[string]string{"X-Tenant-ID": strings.Repeat("t", 129)}, 400},
		{"POST", "/v1/payments", map[string]string{headers.RequestTimeoutMs: "1.5"}, 400},
		{"POST", "/v1/payments", map[string]string{headers.GRPCTimeout: "5x"}, 400},
	} {
		resp, body := send(t, tc.method, gw.URL+tc.path, "{}", tc.hdr)
		wantProblem(t, resp, body, tc.status)
	}
	if n := len(svc.requests()); n != 0 {
		t.Fatalf("the service saw %d requests for refused ones, want 0", n)
	}
}

func TestGateway_ProxyPost(t *testing.T) {
	t.Parallel()
	svc := newService(t, created)
	gw := serve(t, newGateway(t, svc.URL))
	resp, body := send(t, "POST", gw.URL+"/v1/payments", `{"amount":100,"currency":"EUR"}`, map[string]string{
		"Idempotency-Key": `"k1"`, "X-Tenant-ID": "acme", "Content-Type": "application/json", "Cookie": "x=y"})
	if resp.StatusCode != 201 || body != `{"id":"pay_1"}` || resp.Header.Get("Location") != "/v1/payments/pay_1" ||
		resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("X-Internal") != "" {
		t.Fatalf("got %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if _, err := parseLimitsSlack(resp.Header, time.Now(), realSlack); err != nil {
		t.Fatalf("proxied response: %v", err)
	}
	reqs := svc.requests()
	if len(reqs) != 1 {
		t.Fatalf("service saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/payments" || r.Body != `{"amount":100,"currency":"EUR"}` ||
		r.Header.Get("Idempotency-Key") != `"k1"` || r.Header.Get("X-Tenant-ID") != "acme" ||
		r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Cookie") != "" {
		t.Fatalf("service saw %+v", r)
	}
	if ms := atoi(r.Header.Get(headers.RequestTimeoutMs)); ms <= 0 || ms >= 10_000 {
		t.Fatalf("forwarded budget %q with no caller budget; want (0, 10000) ms", r.Header.Get(headers.RequestTimeoutMs))
	}
}

func TestGateway_ProxyGet(t *testing.T) {
	t.Parallel()
	svc := newService(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"pay_7"}`)
	})
	gw := serve(t, newGateway(t, svc.URL))
	resp, body := send(t, "GET", gw.URL+"/v1/payments/pay_7", "", nil)
	if resp.StatusCode != 200 || body != `{"id":"pay_7"}` || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("got %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if r := svc.requests()[0]; r.Method != "GET" || r.Path != "/v1/payments/pay_7" || r.Header.Get("X-Tenant-ID") != "public" {
		t.Fatalf("service saw %+v", r)
	}
}

func TestGateway_BodyLimit(t *testing.T) {
	t.Parallel()
	svc := newService(t, created)
	gw := serve(t, newGateway(t, svc.URL, gateway.WithMaxBodyBytes(1024)))
	resp, body := send(t, "POST", gw.URL+"/v1/payments", strings.Repeat("x", 1025), nil)
	wantProblem(t, resp, body, http.StatusRequestEntityTooLarge)
	if n := len(svc.requests()); n != 0 {
		t.Fatalf("service saw %d requests, want 0", n)
	}
}

// TestGateway_NeverRetries: a POST that fails at the service, with a 503 or
// a dropped connection, reaches it exactly once (HS-14).
func TestGateway_NeverRetries(t *testing.T) {
	t.Parallel()
	for name, handle := range map[string]http.HandlerFunc{
		"503": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"status":503}`)
		},
		"reset": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Idempotency-Key") == `"warm"` {
				created(w, r) // leaves a keep-alive connection for the next call to reuse
				return
			}
			conn, _, _ := http.NewResponseController(w).Hijack()
			_ = conn.Close()
		},
	} {
		svc := newService(t, handle)
		gw := serve(t, newGateway(t, svc.URL))
		if name == "reset" {
			// net/http's transport silently replays a request carrying an
			// Idempotency-Key when a reused connection dies; the gateway must not.
			send(t, "POST", gw.URL+"/v1/payments", `{}`, map[string]string{"Idempotency-Key": `"warm"`})
			svc.mu.Lock()
			svc.reqs = nil
			svc.mu.Unlock()
		}
		resp, body := send(t, "POST", gw.URL+"/v1/payments", `{}`, map[string]string{"Idempotency-Key": `"k"`})
		if n := len(svc.requests()); n != 1 {
			t.Errorf("%s: service saw %d attempts, want 1", name, n)
		}
		switch name {
		case "503":
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || body != `{"status":503}` {
				t.Errorf("503 passed through as %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
		case "reset":
			wantProblem(t, resp, body, http.StatusBadGateway)
		}
	}
}
