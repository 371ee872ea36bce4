package hedging

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// copiesCapped (HD-02): every call is held long enough for one copy more
// than declared to go out; no call may get it.
func copiesCapped(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := begin(ctx, cs)
	if !ok {
		return res
	}
	n := c.p.Copies()
	hold := max(c.cfg.hold(c.p.Delay), c.p.Delay*time.Duration(n+1)+c.tol)
	want := fmt.Sprintf("at most %s copies of a call held %s (time for %d at the declared delay)", copiesText(c.p), check.Ms(hold), n+1)
	if err := c.hold(c.EffectMatch(0), hold); err != nil {
		return check.Inconclusive("%v", err)
	}
	mark := c.mark(ctx)
	r, _ := c.send(ctx, hold)
	groups := c.copies(c.calls(ctx, mark))
	if len(groups) == 0 {
		return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(r))
	}
	most := groups[0]
	for _, a := range groups {
		if len(a) > len(most) {
			most = a
		}
	}
	obs := fmt.Sprintf("%d copies: %s; client got %s", len(most), c.describe(most), check.Describe(r))
	if len(most) > n {
		return check.Fail(want, obs, c.Evidence()...)
	}
	return check.Pass(want, obs, c.Evidence()...)
}
