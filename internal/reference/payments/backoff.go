package payments

import (
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// backoffCeil is min(max, base·2ⁿ) for the n-th retry (n from 0), without overflow.
func backoffCeil(base, max time.Duration, n int) time.Duration {
	d := base
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// wait returns the delay before retry n (from 0) after attempt a: full
// jitter, uniform in [0, ceil] (Brooker's "Full Jitter"), or exactly ceil
// under no-jitter; a valid Retry-After on a 429 or 503 is the minimum unless
// ignoreRetryAfter. An invalid Retry-After falls back to the backoff alone.
func (c *caller) wait(n int, a *attempt, now time.Time) time.Duration {
	ceil := backoffCeil(c.cfg.BaseDelay, c.cfg.MaxDelay, n)
	d := ceil
	if !c.noJitter {
		d = time.Duration(c.rng.int64N(int64(ceil) + 1))
	}
	if ra, ok := a.retryAfter(now); ok && !c.ignoreRetryAfter {
		if c.retryAfterCap > 0 {
			ra = min(ra, c.retryAfterCap)
		}
		d = max(d, ra)
	}
	return d
}

// retryAfter is the Retry-After of a 429 or 503 answer, if valid.
func (a *attempt) retryAfter(now time.Time) (time.Duration, bool) {
	if a == nil || (a.status != http.StatusTooManyRequests && a.status != http.StatusServiceUnavailable) {
		return 0, false
	}
	v := a.header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	ra, err := headers.ParseRetryAfter(v, now)
	if err != nil {
		return 0, false
	}
	return ra.Delay, true
}
