package suites

import (
	"context"
	"slices"
	"sync"
	"time"
)

// quotaBook remembers, per declared tenant, when a 429 said its quota is
// back. Declared tenants are few and shared by every check, so without it a
// rate-limit check could start on a tenant the check before it spent, and
// count that refusal as its own.
type quotaBook struct {
	mu   sync.Mutex
	back map[string]time.Time
}

// quotaInit guards the lazy creation of a harness's book.
var quotaInit sync.Mutex

func (h *Harness) book() *quotaBook {
	quotaInit.Lock()
	defer quotaInit.Unlock()
	if h.quotas == nil {
		h.quotas = &quotaBook{back: map[string]time.Time{}}
	}
	return h.quotas
}

// refused notes that tenant's quota is back at until.
func (b *quotaBook) refused(tenant string, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if until.After(b.back[tenant]) {
		b.back[tenant] = until
	}
}

func (b *quotaBook) backAt(tenant string) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.back[tenant]
}

// noteRefusal books o when it is a 429 for a declared tenant that says
// when to come back.
func (h *Harness) noteRefusal(o rlObs) {
	if o.status != 429 || !slices.Contains(h.Conventions.Tenants, o.tenant) {
		return
	}
	if wait := o.backIn(); wait > 0 {
		h.book().refused(o.tenant, o.at.Add(min(wait, h.RateLimits.maxLoad())))
	}
}

// rlTenant is the next tenant for a rate-limit check, once its quota is
// back: a declared tenant a 429 refused is waited for (plus the tolerance),
// at most the suite's load cap; a made-up tenant is always fresh.
func (c *Case) rlTenant(ctx context.Context) string {
	t := c.tenant()
	if !slices.Contains(c.h.Conventions.Tenants, t) {
		return t
	}
	until := c.h.book().backAt(t)
	if d := time.Until(until.Add(c.h.tolerance())); d > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(min(d, c.h.RateLimits.maxLoad())):
		}
	}
	return t
}

// backIn is how long after o its tenant's quota is back by what o says:
// the latest of Retry-After, the RateLimit reset and the legacy reset; 0
// when it says nothing valid.
func (o rlObs) backIn() time.Duration {
	var d time.Duration
	if ra, raw, err := o.retryAfter(); raw != "" && err == nil {
		d = ra.Delay
	}
	if t, ok := anyReset(o); ok {
		d = max(d, t)
	}
	if o.x.HasReset {
		d = max(d, o.x.ResetIn)
	}
	return d
}
