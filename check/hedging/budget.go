package hedging

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// budgetKept (HD-03): every dependency call is slow; many requests sent
// together may get hedged copies only within the declared budget, counted
// as failsafe-go counts it (hedges as a share of copies in flight), plus
// two copies started in the same instant.
func budgetKept(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := begin(ctx, cs)
	if !ok {
		return res
	}
	h, hold, n := c.Harness, c.cfg.hold(c.p.Delay), c.cfg.concurrent()
	r := c.p.Share()
	if err := c.hold(c.EffectMatch(0), hold); err != nil {
		return check.Inconclusive("%v", err)
	}
	mark := c.mark(ctx)
	type sent struct {
		key string
		r   check.Reply
	}
	out := make([]sent, n)
	calls := make([]check.Call, n)
	for i := range calls {
		calls[i] = check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(),
			Header: h.BudgetHeader(hold + time.Second), Timeout: hold + 3*time.Second}
	}
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() { out[i] = sent{calls[i].Key, h.Send(ctx, calls[i])} })
	}
	wg.Wait()
	got := c.calls(ctx, mark)
	byKey := map[string][]faults.Entry{}
	for _, e := range got {
		byKey[c.key(e)] = append(byKey[c.key(e)], e)
	}
	reached, hedges, most := 0, 0, 0
	for key, group := range byKey {
		if key == "" {
			continue // counted below
		}
		for _, a := range c.copies(group) {
			reached++
			hedges += len(a) - 1
			most = max(most, len(a))
		}
	}
	if keyless := len(byKey[""]); keyless > 0 {
		// Keyless calls cannot be tied to their requests: each request
		// still waiting for a call is taken to have made one, the rest
		// are hedged copies.
		first := min(keyless, n-reached)
		reached, hedges = reached+first, hedges+keyless-first
	}
	if reached < n/2 {
		return check.Inconclusive("only %d of %d requests sent together reached the dependency (first reply %s): too few to weigh a budget", reached, n, check.Describe(out[0].r))
	}
	limit := budgetLimit(r, reached)
	want := fmt.Sprintf("with every call held %s, at most max(⌊%s·%d/(1−budget)⌋, %d) + 2 = %d hedged copies for %d requests sent together", check.Ms(hold), budgetText(c.p), reached, budgetFloor, limit, reached)
	obs := fmt.Sprintf("%d requests reached the dependency, with %d hedged copies (at most %d copies of one)", reached, hedges, most)
	if k := len(byKey[""]); k > 0 {
		obs = fmt.Sprintf("%d requests reached the dependency, with %d hedged copies (%d calls carried no key: beyond one call a request, each is taken for a copy)", reached, hedges, k)
	}
	if hedges > limit {
		return check.Fail(want, obs+": hedging multiplies a slowdown that every call shares", c.Evidence()...)
	}
	return check.Pass(want, obs, c.Evidence()...)
}

// budgetLimit is how many hedged copies n requests held together may get
// under a budget of share: the hedges in flight as a share of all copies in
// flight, as failsafe-go's budget counts them (h ≤ share·(n+h), so
// h ≤ share·n/(1−share)), plus 2 copies started in the same instant.
//
// At least budgetFloor + 2: a budget lets a few hedges through whatever its
// share (failsafe-go's WithMinConcurrency, 3 by default), so a small share
// never bounds fewer.
func budgetLimit(share float64, n int) int {
	return max(int(math.Floor(share*float64(n)/(1-min(share, 0.99)))), budgetFloor) + 2
}

// budgetFloor is the hedges a budget allows in flight whatever its share:
// failsafe-go budget's default minimum concurrency.
const budgetFloor = 3
