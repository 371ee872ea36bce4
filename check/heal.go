package check

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// halfOpenProbes is the fewest successes a heal asks for: the calls a
// half-open breaker lets through before it closes (Resilience4j's
// permittedNumberOfCallsInHalfOpenState default, 10).
const halfOpenProbes = 10

// a6MaxTokens is gRFC A6's example max_tokens: an A6 retry throttle allows
// retries only while it holds more than half of them.
const a6MaxTokens = 10.0

// HealStreak is how many operations in a row must succeed before a case
// that fails the dependency starts. Only successes make a target forget
// earlier cases' failures: a half-open breaker closes after its probes, and
// a retry throttle refills (gRFC A6 retryThrottling: a failed attempt costs
// 1 token, a success earns token_ratio, and a retry is made only while more
// than max_tokens/2 remain after the failure). The declared budget ratio is
// that token ratio; max_tokens is not declared, so A6's example of 10 is
// assumed. From an empty throttle, ⌈t/ratio⌉+1 successes let a request make
// all its retries, t = min(10, 5 + max_attempts − 1): 71 for 3 attempts at
// the SRE book's 0.1.
func (r RetryPolicy) HealStreak() int {
	tokens := min(a6MaxTokens, a6MaxTokens/2+float64(r.Attempts()-1))
	return max(halfOpenProbes, int(math.Ceil(tokens/r.Ratio()))+1)
}

// Refill is how many successes earn back what failures cost a retry
// throttle at the declared budget ratio (⌈failures/ratio⌉), and at least
// the half-open probes of a breaker.
func (r RetryPolicy) Refill(failures int) int {
	return max(halfOpenProbes, int(math.Ceil(float64(failures)/r.Ratio())))
}

// StreakText renders the heal streak and where it comes from.
func (r RetryPolicy) StreakText() string {
	return fmt.Sprintf("%d successes in a row (max(10, ⌈min(10, 5 + %d − 1)/%s⌉ + 1))", r.HealStreak(), r.Attempts(), r.RatioText())
}

// healBatch is how many of a heal's operations are in flight at once, so a
// streak of 71 takes a few round trips rather than 71.
const healBatch = 8

// Heal brings the target back to health before a case: it sends fresh
// operations, each on the case's next tenant (fresh unless the spec
// declares tenants, whose quotas are then shared), until streak in a row
// succeed. A refusal (429) neither counts nor breaks the
// streak (the dependency was not called): its Retry-After (at most 1.5 s)
// is waited out, and extends within (up to 4 times within in all): a
// quota slows the streak without saying anything about the target's health.
// A batch that grows the streak with no failure restarts within too (up to
// the same cap): slow successes are health. Checks run one after another
// against one target, and a breaker or throttle drained by an earlier case
// would otherwise decide this one. It gives up with an error after within
// without such progress.
func (c *Case) Heal(ctx context.Context, streak int, within time.Duration) error {
	stop := sync.OnceValue(c.Harness.startStallWatch()) // also when a send panics
	defer stop()
	start := time.Now()
	deadline, last429 := start.Add(within), start.Add(4*within) // last429: the latest refusals may push the deadline
	var last Reply
	for ok, sent := 0, 0; ok < streak; {
		if time.Now().After(deadline) || ctx.Err() != nil {
			seen := stop()
			c.mu.Lock()
			c.unhealed = &unhealed{took: time.Since(start), seen: seen}
			c.mu.Unlock()
			return fmt.Errorf("the target did not answer %d operations in a row with success within %s (%d sent, last %s)",
				streak, within, sent, Describe(last))
		}
		n := min(healBatch, streak-ok)
		calls := make([]Call, n)
		for i := range calls {
			calls[i] = Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(), Timeout: 3 * time.Second}
		}
		replies := make([]Reply, n)
		var wg sync.WaitGroup
		for i, cl := range calls {
			wg.Go(func() { replies[i] = c.Harness.Send(ctx, cl) })
		}
		wg.Wait()
		sent += n
		var wait, refused time.Duration
		broken := false
		for _, r := range replies {
			last = r
			switch {
			case c.Harness.Succeeded(r):
				ok++
			case r.Err == nil && r.Status == http.StatusTooManyRequests:
				refused = max(refused, retryAfterWait(r))
			default:
				ok, wait, broken = 0, max(wait, retryAfterWait(r)), true
			}
		}
		d := deadline.Add(refused)
		if !broken && ok > 0 {
			// A batch that kept the streak growing is a healthy target's
			// answer, slow or not (a loaded runner, a queue an earlier
			// case left): the time to finish the streak starts again.
			if renewed := time.Now().Add(within); renewed.After(d) {
				d = renewed
			}
		}
		if d.After(last429) {
			d = last429
		}
		deadline = d
		Sleep(ctx, max(wait, refused))
	}
	c.mu.Lock()
	c.unhealed = nil // a later heal that healed: the earlier one decides nothing
	c.mu.Unlock()
	c.Harness.Settle(ctx)
	return nil
}

// starvedHeal is how the runner stalled during the case's latest heal
// that gave up, when it stalled enough to explain it (stalls.starved).
// Empty when no heal gave up, or the runner kept up.
func (c *Case) starvedHeal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unhealed == nil || !c.unhealed.seen.starved(c.unhealed.took) {
		return ""
	}
	return fmt.Sprintf("the runner's wake-ups came up to %s late at once, %s in all, over the %s it spent trying to heal the target", Ms(c.unhealed.seen.worst), Ms(c.unhealed.seen.total), Ms(c.unhealed.took))
}

// unhealed is a heal that gave up: how long it tried, and what the
// runner's stall watch saw meanwhile.
type unhealed struct {
	took time.Duration
	seen stalls
}

// retryAfterWait is how long a heal pauses after a failed reply: 50 ms, or
// its Retry-After up to 1.5 s.
func retryAfterWait(r Reply) time.Duration {
	wait := 50 * time.Millisecond
	if r.Err == nil {
		if ra, err := headers.ParseRetryAfter(r.Header.Get("Retry-After"), time.Now()); err == nil {
			wait = max(wait, min(ra.Delay, 1500*time.Millisecond))
		}
	}
	return wait
}

// BudgetHeader returns a header carrying budget d in the target's deadline
// convention (X-Request-Timeout-Ms unless configured otherwise).
func (h *Harness) BudgetHeader(d time.Duration) http.Header {
	hd := http.Header{}
	headers.SetTimeout(hd, cmp.Or(h.Conventions.DeadlineHeader, headers.RequestTimeoutMs), d)
	return hd
}

// sleepCtx waits d, or less if ctx ends first.
func Sleep(ctx context.Context, d time.Duration) {
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
