package deadlines

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// dlNoWorkAfterDeadline (DL-06): every dependency call hangs past the
// caller's deadline and then fails with 503, the kind of failure a retrying
// target retries. A target that stops at its deadline makes no further
// call; one that works on after its caller's deadline retries after it. The
// suite watches the dependency for deadlines.Config.Watch past the deadline.
func dlNoWorkAfterDeadline(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := dlBegin(ctx, cs)
	if !ok {
		return res
	}
	h := c.Harness
	b := c.budget()
	// Held past the deadline by twice the tolerance, so a retry right after
	// the 503 lands clearly after the deadline.
	hold := b + 2*c.tol
	if err := c.Fault(h.Dependency, faults.Match{}, faults.Blackhole{Timeout: hold, Mode: "status", Status: http.StatusServiceUnavailable}); err != nil {
		return check.Inconclusive("%v", err)
	}
	watch, why := c.cfg.watch(h)
	sent := time.Now()
	r := c.sendBudget(ctx, dlConventionFormat, b, b+c.tol+2*time.Second)
	check.Sleep(ctx, time.Until(sent.Add(b+watch)))
	// A target working on in the background pauses between retries; wait
	// for a quarter of the watch with nothing happening before judging.
	c.quiet(ctx, watch/4, 5*time.Second)
	front, found := c.front(ctx)
	if !found {
		return check.Inconclusive("the front proxy journaled no request (client: %s)", check.Describe(r))
	}
	deadline := front.Received.Add(b)
	want := fmt.Sprintf("no dependency call starts later than %s after the deadline (budget %s in %s; every call held %s, then 503; watched %s: %s)",
		dlMs(c.tol), dlMs(b), h.Conventions.DeadlineHeaderName(), dlMs(hold), dlMs(watch), why)
	calls := c.calls()
	if len(calls) == 0 {
		return check.Inconclusive("the target made no dependency call (it answered %s)", check.Describe(r))
	}
	var late []string
	var margin time.Duration // how far past the tolerance the latest call started
	for i, e := range calls {
		if after := e.Received.Sub(deadline); after > c.tol {
			late = append(late, fmt.Sprintf("call %d started %s after the deadline", i+1, dlMs(after)))
			margin = max(margin, after-c.tol)
		}
	}
	if len(late) > 0 {
		res := check.Fail(want, fmt.Sprintf("%d of %d calls started after the deadline: %v; client got %s", len(late), len(calls), late, check.Describe(r)), c.Evidence()...)
		res.Margin = margin
		return res
	}
	last := calls[len(calls)-1]
	return check.Pass(want, fmt.Sprintf("%d calls, the last started %s the deadline; client got %s",
		len(calls), dlRel(last.Received.Sub(deadline)), check.Describe(r)), c.Evidence()...)
}
