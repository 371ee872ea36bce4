package hedging

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// losersCancelled (HD-04): the first copy is held, its hedge answers at
// once; the held copy must be let go (the dependency proxy sees its client
// go away) within the slack of the winner's answer. It holds for every
// hedging target: one that sends no copy, and declares no hedging, does
// not hedge the call (not applicable).
func losersCancelled(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := begin(ctx, cs)
	if !ok {
		return res
	}
	hold := c.cfg.hold(c.p.Delay)
	want := fmt.Sprintf("when one copy of a call succeeds, every other copy is cancelled within %s", check.Ms(c.cancelTol))
	r, calls, err := c.heldSend(ctx, hold)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	groups := c.copies(calls)
	if (len(groups) == 0 || len(groups[0]) < 2) && !c.p.Declared() {
		return check.NotApplicable("the target sent no copy of a call held %s (client got %s): it does not hedge the call", check.Ms(hold), check.Describe(r))
	}
	if len(groups) == 0 || len(groups[0]) < 2 {
		return check.Inconclusive("the target sent no copy of a call held %s (client got %s): no loser to cancel", check.Ms(hold), check.Describe(r))
	}
	a := groups[0]
	won := -1
	for i, e := range a {
		if st := check.AnswerStatus(e); e.ClientGone.IsZero() && st >= 200 && st < 300 && (won < 0 || e.Finished.Before(a[won].Finished)) {
			won = i
		}
	}
	obs := fmt.Sprintf("%s; client got %s", c.describe(a), check.Describe(r))
	if won < 0 {
		return check.Inconclusive("no copy succeeded (%s): no winner to judge the losers by (gRFC A6 sends the next hedge on a failure rather than cancel)", obs)
	}
	at := a[won].Finished
	for i, e := range a {
		if i == won {
			continue
		}
		if late := loserEnd(e).Sub(at); late > c.cancelTol {
			res := check.Fail(want, fmt.Sprintf("copy %d ran on %s after copy %d answered: %s", i+1, check.Ms(late), won+1, obs), c.Evidence()...)
			res.Margin = late - c.cancelTol // how far past the cancel slack the loser ran
			return res
		}
	}
	return check.Pass(want, obs, c.Evidence()...)
}

// loserEnd is when a losing copy stopped: cancelled, or ended on its own.
func loserEnd(e faults.Entry) time.Time {
	if !e.ClientGone.IsZero() {
		return e.ClientGone
	}
	return e.Finished
}
