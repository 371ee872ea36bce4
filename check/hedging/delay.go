package hedging

import (
	"context"
	"fmt"

	"github.com/resilcheck/resilcheck/check"
)

// delayKept (HD-01): three calls answered at once get no copy; a call whose
// first copy is held gets its second copy once the declared delay has
// passed (less the slack), and before twice the delay (or the delay and
// the slack, when longer): a hedge that waits twice its delay is not
// hedging on the declared schedule, while one a busy runner's scheduler
// delayed by a fraction of it still is (CI saw 405-483 ms for 300 ms).
func delayKept(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := begin(ctx, cs)
	if !ok {
		return res
	}
	d, hold := c.p.Delay, c.cfg.hold(c.p.Delay)
	late := d + max(c.tol, d)
	want := fmt.Sprintf("calls answered at once get no copy; a call held %s gets its second copy %s after the first (the declared delay), no sooner than %s and before %s",
		check.Ms(hold), check.Ms(d), check.Ms(d-c.tol), check.Ms(late))
	// One request at a time, each judged on its own calls: the proxy
	// journals a call's end a moment after its answer left, by when the
	// next request's call may have arrived.
	// Nothing is held here and every answer is a success, so a request has
	// no reason for a second call: any is a copy sent before the delay.
	for range 3 {
		mark := c.mark(ctx)
		c.send(ctx, hold)
		if calls := c.calls(ctx, mark); len(calls) > 1 {
			return check.Fail(want, "a call the dependency answered at once: "+c.describe(calls), c.Evidence()...)
		}
	}
	r, calls, err := c.heldSend(ctx, hold)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	groups := c.copies(calls)
	switch {
	case len(groups) == 0:
		return check.Inconclusive("the target made no dependency call (client got %s)", check.Describe(r))
	case len(groups[0]) < 2:
		return check.Fail(want, fmt.Sprintf("the first call was held %s and got no copy (%s; client got %s): the declared hedging did not happen",
			check.Ms(hold), c.describe(groups[0]), check.Describe(r)), c.Evidence()...)
	}
	a := groups[0]
	gap := a[1].Received.Sub(a[0].Received)
	obs := fmt.Sprintf("held call: %s; client got %s", c.describe(a), check.Describe(r))
	// A failure's margin is how far the gap fell outside its bound (the
	// slack included): a stall of the runner that journaled one copy late
	// moves the gap by no more than its length.
	switch {
	case gap < d-c.tol:
		res := check.Fail(want, fmt.Sprintf("the second copy came %s after the first, before the delay: %s", check.Ms(gap), obs), c.Evidence()...)
		res.Margin = d - c.tol - gap
		return res
	case gap > late:
		res := check.Fail(want, fmt.Sprintf("the second copy came %s after the first, later than the delay: %s", check.Ms(gap), obs), c.Evidence()...)
		res.Margin = gap - late
		return res
	}
	return check.Pass(want, "three quick calls, no copy; "+obs, c.Evidence()...)
}
