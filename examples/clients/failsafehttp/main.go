// Command failsafehttp makes one call through failsafe-go v0.9.8's HTTP
// integration (package failsafehttp) as a Go team would configure it: the
// retry policy failsafehttp.NewRetryPolicyBuilder returns (retries on
// connection errors, 429 and 5xx but 501, waits out a Retry-After its
// DelayFunc reads) with 3 retries, backoff from 500 ms doubling to 4 s and
// ±25 % jitter, a 2 s timeout policy on each attempt inside it, the whole
// operation bounded by a 10 s context. It exits 0 only when the call ends
// in a 2xx answer, 1 otherwise.
//
//	failsafehttp -method=POST -key-header=Idempotency-Key -key=k1 -body='{}' URL
//
// An empty -key sends no key header, an empty -body no body. target.yaml
// runs it once per scenario of resilcheck's client suite (prepare.sh builds
// it into .bin/).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/timeout"
)

func main() {
	method := flag.String("method", "GET", "the request's method")
	keyHeader := flag.String("key-header", "Idempotency-Key", "the idempotency key's header")
	key := flag.String("key", "", "the idempotency key; empty sends none")
	body := flag.String("body", "", "the request body; empty sends none")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: failsafehttp [-method M] [-key-header H] [-key K] [-body B] URL")
		os.Exit(2)
	}
	if err := call(*method, flag.Arg(0), *keyHeader, *key, *body); err != nil {
		fmt.Fprintln(os.Stderr, "failed:", err)
		os.Exit(1)
	}
}

// client is an http.Client whose transport runs every request through the
// policies, the first outermost: a retry policy around a timeout on each
// attempt.
func client() *http.Client {
	retry := failsafehttp.NewRetryPolicyBuilder().
		WithMaxRetries(3).
		WithBackoff(500*time.Millisecond, 4*time.Second).
		WithJitterFactor(0.25).
		Build()
	perAttempt := timeout.New[*http.Response](2 * time.Second)
	return &http.Client{Transport: failsafehttp.NewRoundTripper(nil, retry, perAttempt)}
}

// call is one operation through client.
func call(method, url, keyHeader, key, body string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	resp, err := client().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
