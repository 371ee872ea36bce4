package ratelimit

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// exhaustWorkers is how many probes exhaust keeps in flight: enough to
// outrun a refill, few enough not to trip load shedding.
const exhaustWorkers = 8

// exhaust drives tenant into refusal and returns the first 429 and how
// many requests it took. It gives up (ok false) after 4 r + 16 requests,
// or 2 q + 16 when the advertised policy's quota is larger, as when r
// understates what is left (1000 at most, 400 when nothing is
// advertised), or 5 s.
func exhaust(ctx context.Context, c *check.Case, tenant string) (first429 check.Observation, sent int, ok bool) {
	o, err := rlProbe(ctx, c, tenant)
	if err == nil && o.Status == http.StatusTooManyRequests {
		return o, 1, true
	}
	budget := int64(400)
	if l, has := o.MinRemaining(); has {
		n := 4 * l.Remaining
		if p, ok := policyOf(o.Fields, l); ok {
			n = max(n, 2*p.Quota)
		}
		budget = min(n+16, 1000)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var (
		n    atomic.Int64
		mu   sync.Mutex
		got  *check.Observation
		wg   sync.WaitGroup
		done atomic.Bool
	)
	for range exhaustWorkers {
		wg.Go(func() {
			for !done.Load() && ctx.Err() == nil && n.Add(1) <= budget {
				o, err := rlProbe(ctx, c, tenant)
				if err != nil || o.Status != http.StatusTooManyRequests {
					continue
				}
				mu.Lock()
				if got == nil {
					got = &o
				}
				mu.Unlock()
				done.Store(true)
			}
		})
	}
	wg.Wait()
	sent = int(min(n.Load(), budget)) + 1
	if got == nil {
		return check.Observation{}, sent, false
	}
	return *got, sent, true
}
