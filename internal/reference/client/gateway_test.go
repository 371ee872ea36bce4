package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// fakeGateway is an in-process stand-in for the gateway: a real http.Handler
// served through an http.RoundTripper, so it runs inside a synctest bubble
// (no sockets) and sees exactly what the client sends.
type fakeGateway struct {
	// steps[i] answers attempt i+1; the last step repeats. A step that
	// returns an error makes the transport fail with it instead.
	steps []func(w http.ResponseWriter, r *http.Request) error

	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	At      time.Time
	Method  string
	Path    string
	Key     string
	Tenant  string
	Timeout string
	Body    string
}

var _ http.RoundTripper = (*fakeGateway)(nil)

func (g *fakeGateway) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	g.mu.Lock()
	n := len(g.seen)
	g.seen = append(g.seen, seenRequest{
		At: time.Now(), Method: r.Method, Path: r.URL.EscapedPath(), Key: r.Header.Get("Idempotency-Key"),
		Tenant: r.Header.Get("X-Tenant-ID"), Timeout: r.Header.Get("X-Request-Timeout-Ms"), Body: string(body),
	})
	g.mu.Unlock()
	step := g.steps[min(n, len(g.steps)-1)]
	w := httptest.NewRecorder()
	done := make(chan error, 1)
	go func() { done <- step(w, r) }()
	// Like net/http's transport, give up on the answer when the request's
	// context ends, even if the handler is still busy.
	select {
	case err := <-done:
		if err != nil {
			return nil, err
		}
		return w.Result(), nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

func (g *fakeGateway) requests() []seenRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]seenRequest(nil), g.seen...)
}

// problem answers status with an RFC 9457 body and optional Retry-After.
func problem(status int, retryAfter string) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, _ *http.Request) error {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"https://example.test/problems/%d","title":%q,"status":%d,"detail":"from the fake gateway"}`,
			status, http.StatusText(status), status)
		return nil
	}
}

// created answers 201 with a payment echoing the request.
func created(w http.ResponseWriter, r *http.Request) error {
	var req PaymentRequest
	if r.Body != nil {
		_ = json.NewDecoder(r.Body).Decode(&req)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/v1/payments/pay_1")
	w.WriteHeader(http.StatusCreated)
	return json.NewEncoder(w).Encode(Payment{ID: "pay_1", Amount: req.Amount, Currency: req.Currency, Status: "succeeded", ChargeID: "ch_1"})
}

// hang blocks until the attempt's context ends, like a server that never answers.
func hang(_ http.ResponseWriter, r *http.Request) error {
	<-r.Context().Done()
	return r.Context().Err()
}
