package idempotency

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
)

// A refusal by the target's own limiter (429) is not an effect and not a
// duplicate: the copies it refused are retried once the limiter allows,
// and the race is judged on the copies that were admitted.
const (
	refusalRetries  = 5               // rounds of retrying refused copies
	refusalWaitCap  = 5 * time.Second // the longest Retry-After honoured
	refusalWaitBare = time.Second     // the wait when a 429 gives none
)

// copyRound is one round of concurrent copies: the replies of the copies
// the target admitted (first burst and retries), and the counts.
type copyRound struct {
	admitted []check.Reply
	raced    int // copies admitted in the first burst: the ones that raced
	refused  int // copies refused at first
	left     int // copies still refused after every retry
	quota    int // the quota the target advertised on a reply; 0 = none
}

func (r copyRound) String() string {
	s := fmt.Sprintf("%d copies admitted at once", r.raced)
	if r.refused > 0 {
		s += fmt.Sprintf(", %d refused with 429 (%d still refused after %d retries)", r.refused, r.left, refusalRetries)
	}
	return s
}

// copies sends n copies of base at once, then retries the copies the target
// refused after the Retry-After it gave (at most refusalWaitCap).
func sendCopies(ctx context.Context, c *check.Case, base check.Call, n int) copyRound {
	h := c.Harness
	var round copyRound
	pending := sendBurst(ctx, h, base, n)
	for try := 0; ; try++ {
		var refused []check.Reply
		for _, r := range pending {
			round.quota = max(round.quota, advertisedQuota(r))
			if r.Err == nil && r.Status == http.StatusTooManyRequests {
				refused = append(refused, r)
				continue
			}
			round.admitted = append(round.admitted, r)
		}
		if try == 0 {
			round.raced, round.refused = len(round.admitted), len(refused)
		}
		if len(refused) == 0 || try == refusalRetries || ctx.Err() != nil {
			round.left = len(refused)
			return round
		}
		check.Sleep(ctx, refusalWait(refused))
		pending = sendBurst(ctx, h, base, len(refused))
	}
}

// refusalWait is the longest Retry-After among the refusals, capped.
func refusalWait(refused []check.Reply) time.Duration {
	wait := time.Duration(0)
	for _, r := range refused {
		ra, err := headers.ParseRetryAfter(r.Header.Get("Retry-After"), time.Now())
		if err != nil || r.Header.Get("Retry-After") == "" {
			wait = max(wait, refusalWaitBare)
			continue
		}
		wait = max(wait, ra.Delay)
	}
	return min(max(wait, 100*time.Millisecond), refusalWaitCap)
}

// advertisedQuota is the request quota a reply advertises: q of a
// RateLimit-Policy, else X-RateLimit-Limit; 0 when it shows none.
func advertisedQuota(r check.Reply) int {
	if r.Header == nil {
		return 0
	}
	o := check.Observe(r.Header, time.Now())
	for _, p := range o.Fields.Policies {
		if p.Unit == headers.UnitRequests && p.Quota > 0 {
			return int(p.Quota)
		}
	}
	if o.X.HasLimit && o.X.Limit > 0 {
		return int(o.X.Limit)
	}
	return 0
}
