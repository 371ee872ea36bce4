package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ledger records one entry per payment, deduplicating by the key it is
// given (none when empty).
type ledger interface {
	charge(ctx context.Context, key string, pay *createPaymentResponse) error
	// keyProblem says why key cannot reach the ledger, or "".
	keyProblem(key string) string
}

// httpLedger POSTs each entry to base+"/entries" with Idempotency-Key.
type httpLedger struct{ base string }

var client = &http.Client{Timeout: 5 * time.Second}

func (l httpLedger) charge(ctx context.Context, key string, pay *createPaymentResponse) error {
	body, _ := json.Marshal(map[string]any{"payment": pay.ID, "amount": pay.Amount, "currency": pay.Currency})
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/entries", bytes.NewReader(body))
	if err != nil {
		return status.Errorf(codes.Internal, "ledger request: %v", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if key != "" {
		hreq.Header.Set("Idempotency-Key", key)
	}
	hresp, err := client.Do(hreq)
	if err != nil {
		return status.Errorf(codes.Unavailable, "ledger: %v", err)
	}
	hresp.Body.Close()
	if hresp.StatusCode/100 != 2 {
		return status.Errorf(codes.Unavailable, "ledger answered %s", hresp.Status)
	}
	return nil
}

// keyProblem: Go's HTTP client sends any header value net/http accepts,
// obs-text bytes included.
func (httpLedger) keyProblem(string) string { return "" }
