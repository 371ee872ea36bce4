package clients_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/reference/client"
)

// referenceSDK is a call through the reference stack's Go SDK with its
// defaults (4 attempts, a 2 s attempt timeout, a 10 s deadline) but full
// jitter from 500 ms rather than 100 ms, waits long enough for a shared
// runner to judge (CL-07, CL-13): GET reads a payment, POST creates one.
func referenceSDK(ctx context.Context, c clients.Call) error {
	sdk, err := client.New(c.Base, client.WithBackoff(500*time.Millisecond, 4*time.Second))
	if err != nil {
		return err
	}
	if c.Method == http.MethodPost {
		_, err = sdk.CreatePayment(ctx, client.PaymentRequest{Amount: 100, Currency: "EUR", Key: c.Key})
		return err
	}
	_, err = sdk.GetPayment(ctx, "p-1")
	return err
}

// TestReferenceSDK certifies the reference SDK in-process: it retries the
// way clients should, so nothing fails.
func TestReferenceSDK(t *testing.T) {
	t.Parallel()
	certifyAgainst(t, "reference-sdk", clients.Func(referenceSDK),
		clients.Policy{MaxAttempts: client.DefaultMaxAttempts, Deadline: client.DefaultDeadline, AttemptTimeout: client.DefaultAttemptTimeout})
}
