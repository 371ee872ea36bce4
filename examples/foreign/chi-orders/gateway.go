package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// deadlineHeader carries the caller's remaining budget in milliseconds, in
// and out (Envoy's router filter sets it towards the upstream).
const deadlineHeader = "x-envoy-expected-rq-timeout-ms"

// gateway charges orders at the payment gateway: three attempts, waits of
// 250 ms·2ⁿ up to 2 s (retryablehttp.DefaultBackoff), Retry-After honoured
// on 429 and 503.
type gateway struct {
	url    string
	client *retryablehttp.Client
}

func newGateway(base string) *gateway {
	c := retryablehttp.NewClient()
	c.Logger = nil
	c.RetryMax = 2
	c.RetryWaitMin = 250 * time.Millisecond
	c.RetryWaitMax = 2 * time.Second
	// Every attempt forwards what is left of the caller's budget.
	c.PrepareRetry = func(req *http.Request) error {
		setBudget(req)
		return nil
	}
	return &gateway{url: base + "/v1/charges", client: c}
}

// errGateway is a failed charge: the gateway refused or could not be reached.
type errGateway struct{ status int }

func (e errGateway) Error() string { return fmt.Sprintf("payment gateway answered %d", e.status) }

// charge posts one charge under key; ctx carries the caller's deadline.
func (g *gateway) charge(ctx context.Context, key string, body []byte) ([]byte, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("charge request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	setBudget(req.Request)
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("charge: %w", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("charge answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		return nil, errGateway{resp.StatusCode}
	}
	return out, nil
}

func setBudget(req *http.Request) {
	if dl, ok := req.Context().Deadline(); ok {
		req.Header.Set(deadlineHeader, strconv.FormatInt(max(0, time.Until(dl).Milliseconds()), 10))
	}
}
