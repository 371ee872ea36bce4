package client

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestClient_CreatePayment_loopback runs the client against a real loopback
// HTTP server that answers 503 twice, then 201.
func TestClient_CreatePayment_loopback(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var keys, budgets []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		budgets = append(budgets, r.Header.Get("X-Request-Timeout-Ms"))
		n := len(keys)
		mu.Unlock()
		switch n {
		case 1:
			_ = problem(503, "0")(w, r)
		case 2:
			_ = problem(503, "")(w, r)
		default:
			_ = created(w, r)
		}
	}))
	defer srv.Close()

	c, err := New(srv.URL, WithSeed(1), WithBackoff(time.Millisecond, 10*time.Millisecond), WithAttemptTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreatePayment(t.Context(), eur)
	if err != nil {
		t.Fatalf("CreatePayment: %v", err)
	}
	if p.ID != "pay_1" || p.Amount != 1000 || p.Currency != "EUR" || p.Attempts != 3 {
		t.Errorf("CreatePayment = %+v; want pay_1 for 1000 EUR after 3 attempts", p)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range keys {
		ms, err := strconv.Atoi(budgets[i])
		if keys[i] != keys[0] || err != nil || ms <= 0 || ms > 5000 {
			t.Errorf("attempt %d: key %s, X-Request-Timeout-Ms %q; want key %s and a budget in (0, 5000]", i+1, keys[i], budgets[i], keys[0])
		}
	}
}

// TestClient_CreatePayment_loopbackTimeout checks that a real socket
// attempt that overruns its timeout is abandoned and retried.
func TestClient_CreatePayment_loopbackTimeout(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			// Reading the body to EOF lets the server notice the client
			// hanging up; the timer only bounds a broken client.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		_ = created(w, r)
	}))
	defer srv.Close()

	const timeout = 200 * time.Millisecond
	var attempts []Attempt
	c, err := New(srv.URL, WithSeed(1), WithAttemptTimeout(timeout), WithMaxAttempts(10), WithDeadline(30*time.Second), WithOnAttempt(func(a Attempt) { attempts = append(attempts, a) }))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p, err := c.CreatePayment(t.Context(), eur)
	// A busy machine may time out more attempts; only the first must.
	if err != nil || p.Attempts < 2 {
		t.Fatalf("CreatePayment = %+v, %v; want success after the first attempt timed out", p, err)
	}
	if elapsed := time.Since(start); elapsed < timeout {
		t.Errorf("CreatePayment took %s; want at least the %s attempt timeout", elapsed, timeout)
	}
	if !errors.Is(attempts[0].Err, ErrAttemptTimeout) {
		t.Errorf("attempt 1 error = %v; want ErrAttemptTimeout", attempts[0].Err)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url  string
		opts []Option
		ok   bool
	}{
		{"http://127.0.0.1:8080", nil, true},
		{"https://pay.example/base/", nil, true},
		{"127.0.0.1:8080", nil, false},
		{"ftp://x", nil, false},
		{"http://", nil, false},
		{"http://h", []Option{WithMaxAttempts(0)}, false},
		{"http://h", []Option{WithBackoff(0, time.Second)}, false},
		{"http://h", []Option{WithBackoff(time.Second, time.Millisecond)}, false},
		{"http://h", []Option{WithAttemptTimeout(0)}, false},
		{"http://h", []Option{WithDeadline(-time.Second)}, false},
		{"http://h", []Option{WithMaxRetryAfter(0)}, false},
		{"http://h", []Option{WithHTTPClient(nil)}, false},
		{"http://h", []Option{WithKeyFunc(nil)}, false},
		{"http://h", []Option{WithTenant("bad\ntenant")}, false},
		{"http://h", []Option{WithLogger(nil), WithOnAttempt(nil), WithSeed(0)}, true},
	}
	for i, c := range cases {
		_, err := New(c.url, c.opts...)
		if (err == nil) != c.ok {
			t.Errorf("%d: New(%q) error = %v; want ok %v", i, c.url, err, c.ok)
		}
	}
}

func TestClient_CreatePayment_rejectsBadInput(t *testing.T) {
	t.Parallel()
	g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{created}}
	cases := []struct {
		req  PaymentRequest
		opts []Option
	}{
		{PaymentRequest{Amount: 0, Currency: "EUR"}, nil},
		{PaymentRequest{Amount: -5, Currency: "EUR"}, nil},
		{PaymentRequest{Amount: 5, Currency: "eur"}, nil},
		{PaymentRequest{Amount: 5, Currency: "EURO"}, nil},
		{PaymentRequest{Amount: 5, Currency: "EUR", Key: "ключ"}, nil},
		{PaymentRequest{Amount: 5, Currency: "EUR"}, []Option{WithKeyFunc(func() string { return "" })}},
	}
	for i, tc := range cases {
		c, _ := newTestClient(t, g, tc.opts...)
		if _, err := c.CreatePayment(t.Context(), tc.req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%d: CreatePayment(%+v) error = %v; want ErrInvalidRequest", i, tc.req, err)
		}
	}
	c, _ := newTestClient(t, g)
	for _, id := range []string{"", "..", "a\x00b"} {
		if _, err := c.GetPayment(t.Context(), id); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("GetPayment(%q) error = %v; want ErrInvalidRequest", id, err)
		}
	}
	if n := len(g.requests()); n != 0 {
		t.Errorf("gateway saw %d requests; want none for invalid input", n)
	}
}

func TestClient_CreatePayment_explicitKey(t *testing.T) {
	t.Parallel()
	g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{created}}
	c, _ := newTestClient(t, g)
	if _, err := c.CreatePayment(t.Context(), PaymentRequest{Amount: 5, Currency: "EUR", Key: `order-7 "a\b"`}); err != nil {
		t.Fatal(err)
	}
	if got, want := g.requests()[0].Key, `"order-7 \"a\\b\""`; got != want {
		t.Errorf("Idempotency-Key = %s; want the sf-string %s", got, want)
	}
	if body := g.requests()[0].Body; body != `{"amount":5,"currency":"EUR"}` {
		t.Errorf("body = %s; want the key kept out of the payload", body)
	}
}
