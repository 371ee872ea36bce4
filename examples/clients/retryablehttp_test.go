package clients_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/resilcheck/resilcheck/clients"
)

// retryableHTTP is a call through hashicorp/go-retryablehttp v0.7.8 as a
// Go team would configure it: 3 retries, waits from 500 ms to 4 s, 2 s per
// attempt, the operation bounded by the caller's 10 s context.
func retryableHTTP(ctx context.Context, c clients.Call) error {
	client := retryablehttp.NewClient()
	client.RetryMax = 3
	client.RetryWaitMin, client.RetryWaitMax = 500*time.Millisecond, 4*time.Second
	client.HTTPClient.Timeout = 2 * time.Second
	client.Logger = nil
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var body io.Reader
	if c.Body != "" {
		body = bytes.NewBufferString(c.Body)
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, c.Method, c.URL, body)
	if err != nil {
		return err
	}
	if c.Key != "" {
		req.Header.Set(c.KeyHeader, c.Key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// TestRetryableHTTP certifies go-retryablehttp in-process through the Go API.
func TestRetryableHTTP(t *testing.T) {
	t.Parallel()
	certifyAgainst(t, "retryablehttp", clients.Func(retryableHTTP),
		clients.Policy{MaxAttempts: 4, Deadline: 10 * time.Second, AttemptTimeout: 2 * time.Second})
}
