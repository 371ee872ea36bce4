package suites

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// healStreak is how many operations in a row must succeed before a case
// that fails the dependency starts: a count-based circuit breaker forgets
// earlier failures once they leave its window (the reference's is 10 calls).
const healStreak = 10

// heal brings the target back to health before a case: it sends fresh
// operations, each on a fresh tenant so no rate limit interferes, until
// streak in a row succeed, waiting out Retry-After (at most 1.5 s) after a
// refusal. Checks run one after another against one target, and a breaker
// opened by an earlier case would otherwise decide this one. It gives up
// with an error after within.
func (c *Case) heal(ctx context.Context, streak int, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last reply
	for ok, sent := 0, 0; ok < streak; sent++ {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the target did not answer %d operations in a row with success within %s (%d sent, last %s)",
				streak, within, sent, describe(last))
		}
		last = c.h.send(ctx, call{key: c.key(), tenant: c.tenant(), amount: c.amount(), timeout: 3 * time.Second})
		if c.h.succeeded(last) {
			ok++
			continue
		}
		ok = 0
		wait := 50 * time.Millisecond
		if last.err == nil {
			if ra, err := headers.ParseRetryAfter(last.header.Get("Retry-After"), time.Now()); err == nil {
				wait = max(wait, min(ra.Delay, 1500*time.Millisecond))
			}
		}
		sleepCtx(ctx, wait)
	}
	c.h.settle(ctx)
	return nil
}

// budgetHeader returns a header carrying budget d in the target's deadline
// convention (X-Request-Timeout-Ms unless configured otherwise).
func (h *Harness) budgetHeader(d time.Duration) http.Header {
	hd := http.Header{}
	headers.SetTimeout(hd, or(h.Conventions.DeadlineHeader, headers.RequestTimeoutMs), d)
	return hd
}

// sleepCtx waits d, or less if ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
