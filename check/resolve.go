package check

import (
	"context"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// Resolve sends base and retries it with the same key, as a well-behaved
// client would, until a definitive answer or a 4 s budget: it retries
// transport errors, 409 (in progress), 429 and 5xx, waiting Retry-After
// (capped at 2 s) or a short exponential backoff.
func (h *Harness) Resolve(ctx context.Context, base Call) Reply {
	return h.ResolveWithin(ctx, base, 4*time.Second)
}

// ResolveWithin is resolve with a budget: Retry-After waits are capped at
// half of it and no retry starts after it.
func (h *Harness) ResolveWithin(ctx context.Context, base Call, budget time.Duration) Reply {
	maxWait := budget / 2
	deadline := time.Now().Add(budget)
	wait := 50 * time.Millisecond
	for {
		r := h.Send(ctx, base)
		if !retryable(r) || time.Now().After(deadline) || ctx.Err() != nil {
			return r
		}
		d := wait
		if r.Err == nil {
			if ra, err := headers.ParseRetryAfter(r.Header.Get("Retry-After"), time.Now()); err == nil {
				d = max(d, min(ra.Delay, maxWait))
			}
		}
		wait = min(2*wait, time.Second)
		select {
		case <-ctx.Done():
			return r
		case <-time.After(d):
		}
	}
}

func retryable(r Reply) bool {
	return r.Err != nil || r.Status == http.StatusConflict || r.Status == http.StatusTooManyRequests || r.Status >= 500
}
