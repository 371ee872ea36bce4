package retryafter

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// raStamped is a reply with the instants it was sent and fully received.
type raStamped struct {
	check.Reply
	sent, at time.Time
}

func raSend(ctx context.Context, h *check.Harness, c check.Call) raStamped {
	sent := time.Now()
	r := h.Send(ctx, c)
	return raStamped{Reply: r, sent: sent, at: time.Now()}
}

// raExhaust sends waves of concurrent requests as tenant until one is
// refused with 429 or the limit is reached: ExhaustLimit, raised to what the
// first wave's replies advertise as remaining (RateLimit r,
// X-RateLimit-Remaining) plus two waves. Replies come in wave order.
func raExhaust(ctx context.Context, c *check.Case, tenant string) ([]raStamped, error) {
	const wave = 10
	var out []raStamped
	limit := config(c.Harness).exhaustLimit()
	for len(out) < limit && ctx.Err() == nil {
		rs := make([]raStamped, wave)
		calls := make([]check.Call, wave)
		for i := range calls {
			calls[i] = check.Call{Key: c.Key(), Tenant: tenant, Amount: c.Amount()}
		}
		var wg sync.WaitGroup
		for i := range rs {
			wg.Go(func() { rs[i] = raSend(ctx, c.Harness, calls[i]) })
		}
		wg.Wait()
		out = append(out, rs...)
		if slices.ContainsFunc(rs, func(r raStamped) bool { return r.Err == nil && r.Status == http.StatusTooManyRequests }) {
			return out, nil
		}
		if config(c.Harness).ExhaustLimit == 0 && len(out) == wave { // learned once: a window that resets meanwhile must not raise it again
			limit = max(limit, len(out)+advertisedRemaining(rs)+2*wave)
		}
	}
	return out, fmt.Errorf("no 429 after %d requests from one tenant", len(out))
}

// raDepOutcome is one dependency-fault case: the client's answer and the
// effectful dependency calls it caused, by arrival.
type raDepOutcome struct {
	reply    raStamped
	calls    []faults.Entry
	faulted  *faults.Entry // the first call the rule answered
	next     *faults.Entry // the first later call with the same forwarded key
	evidence []faults.Entry
	// keyHeader is the key header the target forwards to its dependency.
	keyHeader string
}

// failedCalls is how many of the effectful dependency calls a fault
// answered.
func (o raDepOutcome) failedCalls() int {
	n := 0
	for _, e := range o.calls {
		if e.Fault != "" {
			n++
		}
	}
	return n
}

// gap is the time from the faulted answer to the next call.
func (o raDepOutcome) gap() time.Duration { return o.next.Received.Sub(o.faulted.Finished) }

// raDepCase flushes the breaker, then lets fault answer the first `first`
// effectful dependency calls (0: all) while one request with a fresh key
// and the given budget goes through. prepare runs after the flush, just
// before the rule is placed, and returns the fault (so dates can be stamped
// then).
func raDepCase(ctx context.Context, c *check.Case, first int, budget time.Duration, prepare func() faults.Fault) (raDepOutcome, error) {
	return raDepCaseHealed(ctx, c, first, budget, prepare, config(c.Harness).breakerFlush(c.Harness))
}

// raDepCaseHealed is raDepCase flushing the breaker with streak successes
// in a row: fewer than the whole flush suit a target whose state the
// caller knows (see raMachine.streak).
func raDepCaseHealed(ctx context.Context, c *check.Case, first int, budget time.Duration, prepare func() faults.Fault, streak int) (raDepOutcome, error) {
	// A target's own limiter may refuse the request before any dependency
	// call (its quota is shared with the checks before this one): that is
	// not the behaviour under test, so wait as told and try again.
	for try := 1; ; try++ {
		o, err := raDepCaseOnce(ctx, c, first, budget, prepare, streak)
		if err != nil || try == raRefusedTries || o.faulted != nil || len(o.calls) > 0 || o.reply.Status != http.StatusTooManyRequests {
			return o, err
		}
		wait := time.Second
		if ra, err := headers.ParseRetryAfter(o.reply.Header.Get("Retry-After"), o.reply.at); err == nil {
			wait = min(max(ra.Delay, 100*time.Millisecond), raRefusedWaitCap)
		}
		if check.Sleep(ctx, wait); ctx.Err() != nil {
			return o, ctx.Err()
		}
	}
}

// A request the target itself refuses with 429 is sent raRefusedTries
// times at most, each after the last refusal's Retry-After capped at
// raRefusedWaitCap: once more is enough for a quota an earlier check spent.
const (
	raRefusedTries   = 2
	raRefusedWaitCap = 5 * time.Second
)

// raDepCaseOnce is one try of raDepCaseHealed.
func raDepCaseOnce(ctx context.Context, c *check.Case, first int, budget time.Duration, prepare func() faults.Fault, streak int) (raDepOutcome, error) {
	h := c.Harness
	if err := c.Heal(ctx, streak, config(c.Harness).flushWithin(c.Harness)); err != nil {
		return raDepOutcome{}, err
	}
	mark := h.Journal.LastSeq()
	name, lift, err := c.Rule(h.Dependency, c.EffectMatch(first), prepare())
	if err != nil {
		return raDepOutcome{}, err
	}
	r := raSend(ctx, h, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(),
		Header: h.BudgetHeader(budget), Timeout: budget + 3*time.Second})
	lift()
	h.Settle(ctx)
	o := raDepOutcome{reply: r, evidence: h.Journal.After(mark), keyHeader: h.Conventions.DependencyKeyName()}
	method := cmp.Or(h.Operation.EffectMethod, http.MethodPost)
	for _, e := range o.evidence {
		if e.Side == "dependency" && e.Method == method && (h.Operation.EffectPath == "" || faults.ByPath(h.Operation.EffectPath)(&e)) {
			o.calls = append(o.calls, e)
		}
	}
	slices.SortFunc(o.calls, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	key := o.keyHeader
	for i := range o.calls {
		e := &o.calls[i]
		switch {
		case o.faulted == nil && e.Rule == name:
			o.faulted = e
		case o.faulted != nil && o.next == nil && e.Header(key) == o.faulted.Header(key):
			o.next = e
		}
	}
	return o, nil
}

// raAlignedSecond returns a whole wall-clock second S no more than 350 ms
// in the past, waiting for the next one if need be, so a date S+N sent now
// lies between N−0.35 s and N s ahead.
func raAlignedSecond(ctx context.Context) time.Time {
	now := time.Now()
	s := now.Truncate(time.Second)
	if now.Sub(s) > 350*time.Millisecond {
		s = s.Add(time.Second)
		check.Sleep(ctx, time.Until(s)+time.Millisecond)
	}
	return s.UTC()
}

// advertisedRemaining is the largest quota the replies say is left (the
// smallest r of each reply's limits); 0 when none advertises one.
func advertisedRemaining(rs []raStamped) int {
	most := 0
	for _, r := range rs {
		if r.Err != nil {
			continue
		}
		o := check.Observe(r.Header, r.at)
		if l, ok := o.MinRemaining(); ok {
			most = max(most, int(min(l.Remaining, 1<<20)))
		} else if o.XErr == nil && o.X.HasRemaining {
			most = max(most, int(min(o.X.Remaining, 1<<20)))
		}
	}
	return most
}
