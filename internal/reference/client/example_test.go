package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/resilcheck/resilcheck/internal/reference/client"
)

// The gateway here is overloaded once, then accepts; the client retries
// with the same Idempotency-Key, so the payment is made exactly once.
func Example() {
	var calls atomic.Int32
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"title":"overloaded","status":503}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"pay_1","amount":1000,"currency":"EUR","status":"succeeded","charge_id":"ch_1"}`)
	}))
	defer gateway.Close()

	c, err := client.New(gateway.URL, client.WithTenant("acme"), client.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := c.CreatePayment(context.Background(), client.PaymentRequest{Amount: 1000, Currency: "EUR"})
	var re *client.RetryError
	var se *client.StatusError
	switch {
	case errors.As(err, &re):
		fmt.Println("outcome unknown; retry later with key", re.Key)
	case errors.As(err, &se):
		fmt.Println("refused:", se.Status)
	case err != nil:
		fmt.Println(err)
	default:
		fmt.Println(p.ID, p.Status, "after", p.Attempts, "attempts")
	}
	// Output: pay_1 succeeded after 2 attempts
}

// NextDelay is pure, so a schedule can be inspected without a server.
func ExampleNextDelay() {
	p := client.Policy{} // defaults: 100ms base, 2s cap, 30s Retry-After limit
	fmt.Println(p.Bound(0), p.Bound(3), p.Bound(10))
	_, err := client.NextDelay(p, 0, 45e9, true, 60e9, nil)
	fmt.Println(err != nil)
	// Output:
	// 100ms 800ms 2s
	// true
}
