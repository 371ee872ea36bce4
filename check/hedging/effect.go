package hedging

import (
	"context"
	"fmt"

	"github.com/resilcheck/resilcheck/check"
)

// oneEffect (HD-05): the first call of a write is held; any copy the target
// sends while it is outstanding must carry the same idempotency key, and
// the write must take effect once. A target that sends no such copy does
// not hedge the call: not applicable.
func oneEffect(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := begin(ctx, cs)
	if !ok {
		return res
	}
	h := c.Harness
	hold := c.cfg.hold(c.p.Delay)
	name := h.Conventions.DependencyKeyName()
	want := fmt.Sprintf("every copy of a write sent while the first is outstanding carries the first's %s, and the write takes effect once", name)
	r, calls, err := c.heldSend(ctx, hold)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	for _, a := range c.copies(calls) {
		if len(a) < 2 {
			continue
		}
		first := c.key(a[0])
		if first == "" {
			return check.Fail(want, fmt.Sprintf("%d copies of the write carried no %s: %s; client got %s",
				len(a), name, c.describe(a), check.Describe(r)), c.Evidence()...)
		}
		for i, e := range a[1:] {
			if k := c.key(e); k != first {
				return check.Fail(want, fmt.Sprintf("copy %d carried %s %q while copy 1 carried %q: %s; client got %s",
					i+2, name, k, first, c.describe(a), check.Describe(r)), c.Evidence()...)
			}
		}
		ef := c.Effects(ctx)
		if d := c.Disagreed(); d != "" {
			return check.Inconclusive("%s", d)
		}
		obs := fmt.Sprintf("%s; effects: %s; client got %s", c.describe(a), ef, check.Describe(r))
		if ef.Total > 1 {
			return check.Fail(want, obs, c.Evidence()...)
		}
		return check.Pass(want, obs, c.Evidence()...)
	}
	return check.NotApplicable("the target sent no copy of a write while its first call was held %s (%d calls, one at a time; client got %s): it does not hedge the call",
		check.Ms(hold), len(calls), check.Describe(r))
}
