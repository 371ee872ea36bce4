// Command retryablehttp makes one call through hashicorp/go-retryablehttp
// v0.7.8 as a Go team would configure it: 3 retries, waits from 500 ms to
// 4 s, 2 s per attempt, the operation bounded by a 10 s context. It exits 0
// only when the call ends in a 2xx answer, 1 otherwise.
//
//	retryablehttp -method=POST -key-header=Idempotency-Key -key=k1 -body='{}' URL
//
// An empty -key sends no key header, an empty -body no body. target.yaml
// runs it once per scenario of resilcheck's client suite (prepare.sh builds
// it into .bin/).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func main() {
	method := flag.String("method", "GET", "the request's method")
	keyHeader := flag.String("key-header", "Idempotency-Key", "the idempotency key's header")
	key := flag.String("key", "", "the idempotency key; empty sends none")
	body := flag.String("body", "", "the request body; empty sends none")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: retryablehttp [-method M] [-key-header H] [-key K] [-body B] URL")
		os.Exit(2)
	}
	if err := call(*method, flag.Arg(0), *keyHeader, *key, *body); err != nil {
		fmt.Fprintln(os.Stderr, "failed:", err)
		os.Exit(1)
	}
}

// call is one operation through a retryablehttp.Client: every setting
// that is not NewClient's default is here.
func call(method, url, keyHeader, key, body string) error {
	client := retryablehttp.NewClient() // DefaultRetryPolicy, DefaultBackoff
	client.RetryMax = 3
	client.RetryWaitMin, client.RetryWaitMax = 500*time.Millisecond, 4*time.Second
	client.HTTPClient.Timeout = 2 * time.Second
	client.Logger = nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	resp, err := client.Do(req)
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
