package check

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

// bookKey keys the run's quota book among the harness's shared values.
type bookKey struct{}

// book is the run's quota book.
func quotas(h *Harness) *quotaBook {
	return h.Shared(bookKey{}, func() any { return &quotaBook{back: map[string]time.Time{}} }).(*quotaBook)
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

// QuotaBackAt books that tenant's quota is back at until (a load that
// ended refused spent it), if that is later than the book says.
func (h *Harness) QuotaBackAt(tenant string, until time.Time) { quotas(h).refused(tenant, until) }

// NoteRefusal books o when it is a 429 for a declared tenant that says
// when to come back, at most maxWait from o.
func (h *Harness) NoteRefusal(o Observation, maxWait time.Duration) {
	if o.Status != 429 || !slices.Contains(h.Conventions.Tenants, o.Tenant) {
		return
	}
	if wait := o.BackIn(); wait > 0 {
		quotas(h).refused(o.Tenant, o.At.Add(min(wait, maxWait)))
	}
}

// QuotaTenant is the case's next tenant (Tenant) once its quota is back: a
// declared tenant a 429 refused is waited for (plus the slack), at most
// maxWait; a made-up tenant is always fresh. Checks that spend quotas take
// their tenants from it, so a refusal an earlier check caused is not theirs.
func (c *Case) QuotaTenant(ctx context.Context, maxWait time.Duration) string {
	t := c.Tenant()
	if !slices.Contains(c.Harness.Conventions.Tenants, t) {
		return t
	}
	until := quotas(c.Harness).backAt(t)
	if d := time.Until(until.Add(c.Harness.Slack())); d > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(min(d, maxWait)):
		}
	}
	return t
}
