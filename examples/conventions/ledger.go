package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// retryPolicy is the service's policy towards its ledger, declared in
// target.yaml under policy.retry: at most MaxAttempts attempts, full-jitter
// waits (Brooker 2015) of at most min(Cap, Base·2ⁿ), never shorter than a
// Retry-After, never past the caller's deadline, and gRFC A6 retry
// throttling so a sustained outage is not amplified.
type retryPolicy struct {
	MaxAttempts int
	Base, Cap   time.Duration
	// MaxTokens and TokenRatio are gRFC A6's retryThrottling: a failed
	// attempt costs a token, a success earns TokenRatio, and retries stop
	// while at most half the tokens are left.
	MaxTokens, TokenRatio float64
}

var defaultRetry = retryPolicy{MaxAttempts: 3, Base: 50 * time.Millisecond, Cap: time.Second, MaxTokens: 10, TokenRatio: 0.1}

// outcome is what writing one ledger entry amounted to.
type outcome int

const (
	written  outcome = iota + 1 // 2xx: the entry exists
	rejected                    // a 4xx other than 429: retrying cannot help
	failed                      // retries exhausted or throttled: may succeed later
	expired                     // the caller's deadline passed
	gone                        // the caller left
)

// ledger writes entries at the dependency; safe for concurrent use.
type ledger struct {
	client *http.Client
	url    string
	policy retryPolicy
	brk    breakName

	mu     sync.Mutex
	tokens float64
	rng    *rand.Rand
}

func newLedger(url string, p retryPolicy, brk breakName) *ledger {
	return &ledger{
		client: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64}},
		url:    url, policy: p, brk: brk, tokens: p.MaxTokens,
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x636f6e76)),
	}
}

// write puts entry id with body to the ledger (PUT /entries/{id}) by deadline. retryAfter is
// the last wait the ledger asked for (0 if none).
func (l *ledger) write(ctx context.Context, deadline time.Time, id string, body []byte) (outcome, time.Duration) {
	var retryAfter time.Duration
	for attempt := 0; ; attempt++ {
		status, hdr, err := l.attempt(ctx, deadline, id, body)
		switch {
		case ctx.Err() != nil:
			return gone, retryAfter
		case !time.Now().Before(deadline):
			return expired, retryAfter
		case err == nil && status/100 == 2:
			l.earn()
			return written, retryAfter
		case err == nil && status/100 == 4 && status != http.StatusTooManyRequests:
			return rejected, retryAfter
		case err == nil && status == http.StatusNotImplemented:
			return rejected, retryAfter
		}
		wait := l.backoff(attempt)
		if err == nil {
			if ra, perr := headers.ParseRetryAfter(hdr.Get("Retry-After"), time.Now()); perr == nil {
				retryAfter = ra.Delay
				if l.brk != "ignore-retry-after" {
					wait = max(wait, ra.Delay)
				}
			}
		}
		if !l.spend() || attempt+1 >= l.policy.MaxAttempts || !time.Now().Add(wait).Before(deadline) {
			return failed, retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return gone, retryAfter
		case <-t.C:
		}
	}
}

// attempt makes one call, bounded by deadline, forwarding the remaining
// budget in grpc-timeout and the entry id as X-Upstream-Key.
func (l *ledger) attempt(ctx context.Context, deadline time.Time, id string, body []byte) (int, http.Header, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, l.url+"/entries/"+id, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.GetBody = nil // every attempt is this loop's to make, never net/http's
	req.Header.Set("Content-Type", "application/json")
	headers.SetTimeout(req.Header, headers.GRPCTimeout, time.Until(deadline))
	if l.brk != "no-upstream-key" {
		req.Header.Set("X-Upstream-Key", id)
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return 0, nil, err
	}
	return resp.StatusCode, resp.Header, nil
}

// backoff draws the full-jitter wait before retry n (from 0).
func (l *ledger) backoff(n int) time.Duration {
	ceil := min(l.policy.Cap, l.policy.Base<<min(n, 30))
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Duration(l.rng.Int64N(int64(ceil) + 1))
}

// spend takes a token for a failed attempt and reports whether a retry is
// still allowed (more than half the tokens left).
func (l *ledger) spend() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = max(0, l.tokens-1)
	return l.tokens > l.policy.MaxTokens/2
}

func (l *ledger) earn() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = min(l.policy.MaxTokens, l.tokens+l.policy.TokenRatio)
}
