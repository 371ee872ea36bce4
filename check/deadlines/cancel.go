package deadlines

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// dlCancelsAtDeadline (DL-03): the dependency hangs; when the caller's
// budget runs out the target must abandon its call, which the dependency
// proxy sees as its client going away.
func dlCancelsAtDeadline(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := dlBegin(ctx, cs)
	if !ok {
		return res
	}
	h := c.Harness
	if err := c.hang(); err != nil {
		return check.Inconclusive("%v", err)
	}
	b := c.budget()
	r := c.sendBudget(ctx, dlConventionFormat, b, b+c.tol+2*time.Second)
	front, found := c.front(ctx)
	if !found {
		return check.Inconclusive("the front proxy journaled no request (client: %s)", check.Describe(r))
	}
	deadline := front.Received.Add(b)
	want := fmt.Sprintf("every dependency call cancelled by the deadline (budget %s in %s) + %s tolerance", dlMs(b), h.Conventions.DeadlineHeaderName(), dlMs(c.tol))
	return c.judgeCancelled(want, deadline, "the deadline", r)
}

// dlCancelsOnDisconnect (DL-07): the dependency hangs and the caller gives
// up early, well inside its budget; the target must cancel its dependency
// call when its caller goes, not when its own budget runs out.
func dlCancelsOnDisconnect(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := dlBegin(ctx, cs)
	if !ok {
		return res
	}
	if err := c.hang(); err != nil {
		return check.Inconclusive("%v", err)
	}
	patience := c.budget()
	b := patience + time.Second // the budget outlives the caller by far
	r := c.sendBudget(ctx, dlConventionFormat, b, patience)
	if r.Err == nil {
		return check.Inconclusive("the target answered %s before the client gave up after %s", check.Describe(r), dlMs(patience))
	}
	front, found := c.front(ctx)
	if !found {
		return check.Inconclusive("the front proxy journaled no request (client: %s)", check.Describe(r))
	}
	gone := front.ClientGone
	if gone.IsZero() {
		gone = front.Received.Add(patience)
	}
	want := fmt.Sprintf("every dependency call cancelled within %s of the client disconnecting after %s (its budget was %s)", dlMs(c.tol), dlMs(patience), dlMs(b))
	return c.judgeCancelled(want, gone, "the client left", r)
}

// judgeCancelled passes when the target called its dependency and every
// call started before at and went away by at plus the tolerance. what
// names the moment in report lines.
func (c *dlCase) judgeCancelled(want string, at time.Time, what string, r check.Reply) check.Result {
	h := c.Harness
	calls := c.calls()
	open := h.Dependency.InFlight()
	if len(calls) == 0 {
		if open > 0 {
			return check.Fail(want, fmt.Sprintf("%d dependency calls still open %s after %s", open, dlMs(time.Since(at)), what), c.Evidence()...)
		}
		return check.Inconclusive("the target made no dependency call (it answered %s): nothing to cancel", check.Describe(r))
	}
	// late is a failure by how far past the tolerance it came: a stall of
	// the runner shorter than that cannot explain it.
	late := func(by time.Duration, format string, a ...any) check.Result {
		res := check.Fail(want, fmt.Sprintf(format, a...), c.Evidence()...)
		res.Margin = by - c.tol
		return res
	}
	var seen []string
	for i, e := range calls {
		start := e.Received.Sub(at)
		switch {
		case start > c.tol:
			return late(start, "call %d started %s after %s", i+1, dlMs(start), what)
		case e.ClientGone.IsZero():
			return late(e.Finished.Sub(at), "call %d was never cancelled: it ended %s after %s (%s)", i+1, dlMs(e.Finished.Sub(at)), what, e.Outcome)
		case e.ClientGone.Sub(at) > c.tol:
			return late(e.ClientGone.Sub(at), "call %d was cancelled %s after %s", i+1, dlMs(e.ClientGone.Sub(at)), what)
		}
		seen = append(seen, fmt.Sprintf("call %d cancelled %s %s", i+1, dlRel(e.ClientGone.Sub(at)), what))
	}
	if open > 0 {
		return check.Fail(want, fmt.Sprintf("%s; %d more still open %s after %s", strings.Join(seen, "; "), open, dlMs(time.Since(at)), what), c.Evidence()...)
	}
	return check.Pass(want, strings.Join(seen, "; ")+"; client got "+check.Describe(r), c.Evidence()...)
}

// dlRel renders an offset as "12ms after" or "3ms before".
func dlRel(d time.Duration) string {
	if d < 0 {
		return dlMs(-d) + " before"
	}
	return dlMs(d) + " after"
}
