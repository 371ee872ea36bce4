package main

import (
	"bytes"
	"context"
	"encoding/json"
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
// Retry-After, never past the caller's deadline, and a circuit breaker so
// a sustained outage is not amplified.
type retryPolicy struct {
	MaxAttempts int
	Base, Cap   time.Duration
	// Trip consecutive failed attempts open the breaker for Open: calls
	// are refused without reaching the ledger until then, and the first
	// failure after it opens it again (gobreaker's consecutive-failures
	// trip, with a short open state).
	Trip int
	Open time.Duration
}

var defaultRetry = retryPolicy{MaxAttempts: 3, Base: 50 * time.Millisecond, Cap: time.Second, Trip: 5, Open: time.Second}

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

	mu        sync.Mutex
	failures  int       // consecutive failed attempts
	openUntil time.Time // the breaker refuses calls until then
	rng       *rand.Rand
}

func newLedger(url string, p retryPolicy, brk breakName) *ledger {
	return &ledger{
		client: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64}},
		url:    url, policy: p, brk: brk,
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x636f6e76)),
	}
}

// write puts entry id with body to the ledger (PUT /entries/{id}) by deadline. retryAfter is
// the last wait the ledger asked for (0 if none).
func (l *ledger) write(ctx context.Context, deadline time.Time, id string, body []byte) (outcome, time.Duration) {
	var retryAfter time.Duration
	for attempt := 0; ; attempt++ {
		if open := l.refusing(time.Now()); open > 0 {
			return failed, max(retryAfter, open)
		}
		status, hdr, confirmed, err := l.attempt(ctx, deadline, id, body)
		switch {
		case ctx.Err() != nil:
			return gone, retryAfter
		case err == nil && status/100 == 2 && !confirmed:
			l.record(true)
			return rejected, retryAfter // answered, but not about this entry: retrying cannot help
		case err == nil && status/100 == 2:
			l.record(true)
			return written, retryAfter
		case !time.Now().Before(deadline):
			l.record(false)
			return expired, retryAfter
		case err == nil && status/100 == 4 && status != http.StatusTooManyRequests:
			return rejected, retryAfter
		case err == nil && status == http.StatusNotImplemented:
			return rejected, retryAfter
		}
		l.record(false)
		wait, pastDeadline := l.backoff(attempt), false
		if v := hdr.Get("Retry-After"); err == nil && v != "" {
			ra, perr := headers.ParseRetryAfter(v, time.Now())
			switch {
			case perr != nil && l.brk == "invalid-retry-after-stops":
				return failed, retryAfter
			case perr == nil:
				retryAfter = ra.Delay
				if l.brk != "ignore-retry-after" {
					wait = max(wait, ra.Delay)
				}
				pastDeadline = l.brk == "retry-after-past-deadline"
			}
		}
		if attempt+1 >= l.policy.MaxAttempts || !pastDeadline && !time.Now().Add(wait).Before(deadline) {
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
// budget in grpc-timeout and the entry id as X-Upstream-Key. confirmed
// says the answer names the entry: {"entry": "/entries/<id>", ...}.
func (l *ledger) attempt(ctx context.Context, deadline time.Time, id string, body []byte) (status int, hdr http.Header, confirmed bool, err error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	path := "/entries/" + id
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, l.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, false, err
	}
	req.GetBody = nil // every attempt is this loop's to make, never net/http's
	req.Header.Set("Content-Type", "application/json")
	headers.SetTimeout(req.Header, headers.GRPCTimeout, time.Until(deadline))
	if l.brk != "no-upstream-key" {
		req.Header.Set("X-Upstream-Key", id)
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return 0, nil, false, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, false, err
	}
	var entry struct {
		Entry string `json:"entry"`
	}
	confirmed = json.Unmarshal(answer, &entry) == nil && entry.Entry == path
	return resp.StatusCode, resp.Header, confirmed, nil
}

// backoff draws the full-jitter wait before retry n (from 0).
func (l *ledger) backoff(n int) time.Duration {
	ceil := min(l.policy.Cap, l.policy.Base<<min(n, 30))
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Duration(l.rng.Int64N(int64(ceil) + 1))
}

// refusing returns how long the open breaker still refuses calls, or 0.
func (l *ledger) refusing(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(0, l.openUntil.Sub(now))
}

// record counts an attempt's outcome: a success closes the breaker, the
// Trip-th consecutive failure (and every one after, while half-open) opens it.
func (l *ledger) record(ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		l.failures = 0
		return
	}
	l.failures++
	if l.failures >= l.policy.Trip {
		l.openUntil = time.Now().Add(l.policy.Open)
	}
}
