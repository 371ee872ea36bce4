package clients_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/resilcheck/resilcheck/clients"
	"github.com/resilcheck/resilcheck/reference/client"
)

// referenceSDK is a call through the reference stack's Go SDK with its
// defaults (4 attempts, full jitter from 100 ms, a 2 s attempt timeout, a
// 10 s deadline): GET reads a payment, POST creates one.
func referenceSDK(ctx context.Context, c clients.Call) error {
	sdk, err := client.New(c.Base)
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
