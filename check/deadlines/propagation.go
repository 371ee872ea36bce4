package deadlines

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// dlPropagates returns DL-04 for one deadline header format (name, or
// dlConventionFormat for the target's own). The first dependency call hangs
// for a while, then fails with 503, so a target that retries makes a second
// call later in its budget: each call must carry a budget no larger than
// the one sent minus the time elapsed since (T_out ≤ T_in − elapsed + ε),
// which a hard-coded, fresh or copied budget does not satisfy.
func dlPropagates(name string) func(ctx context.Context, c *check.Case) check.Result {
	return func(ctx context.Context, cs *check.Case) check.Result {
		h := cs.Harness
		own := h.Conventions.DeadlineHeaderName()
		switch {
		case name == dlConventionFormat:
			name = own
		case http.CanonicalHeaderKey(name) == own:
			return check.NotApplicable("%s is the target's own deadline header, exercised by DL-04", name)
		}
		if !config(h).sendsFormat(name) {
			return check.NotApplicable("%s is not among the deadline formats to exercise (deadlines.Config.Formats %v)", name, config(h).Formats)
		}
		c, res, ok := dlBegin(ctx, cs)
		if !ok {
			return res
		}
		lo, hi := c.cfg.budgets()
		b := hi + time.Duration(100+c.IntN(400))*time.Millisecond
		hold := lo + time.Duration(c.IntN(200))*time.Millisecond
		if err := c.Fault(h.Dependency, faults.Match{First: 1}, faults.Blackhole{Timeout: hold, Mode: "status", Status: http.StatusServiceUnavailable}); err != nil {
			return check.Inconclusive("%v", err)
		}
		r := c.sendBudget(ctx, name, b, b+c.tol+2*time.Second)
		front, found := c.front(ctx)
		if !found {
			return check.Inconclusive("the front proxy journaled no request (client: %s)", check.Describe(r))
		}
		calls := c.calls()
		want := fmt.Sprintf("every dependency call carries a budget ≤ %s sent in %s − time elapsed since + %s tolerance (first call held %s, then 503)",
			dlMs(b), name, dlMs(c.tol), dlMs(hold))
		if len(calls) == 0 {
			return check.Inconclusive("the target made no dependency call (it answered %s)", check.Describe(r))
		}
		var seen []string
		for i, e := range calls {
			elapsed := e.Received.Sub(front.Received)
			allowed := b - elapsed + c.tol
			d, present, err := dlDownstreamBudget(e)
			switch {
			case err != nil:
				return check.Fail(want, fmt.Sprintf("call %d at +%s carried a malformed budget: %v", i+1, dlMs(elapsed), err), c.Evidence()...)
			case !present:
				return check.Fail(want, fmt.Sprintf("call %d at +%s carried no budget (none of X-Request-Timeout-Ms, grpc-timeout, x-envoy-*-timeout-ms)", i+1, dlMs(elapsed)), c.Evidence()...)
			case d > allowed:
				return check.Fail(want, fmt.Sprintf("call %d at +%s carried %s; at most %s was left (%s over, tolerance included)",
					i+1, dlMs(elapsed), dlMs(d), dlMs(b-elapsed), dlMs(d-allowed)), c.Evidence()...)
			}
			seen = append(seen, fmt.Sprintf("call %d at +%s: %s (%s left; margin %s)", i+1, dlMs(elapsed), dlMs(d), dlMs(b-elapsed), dlMs(b-elapsed-d)))
		}
		return check.Pass(want, strings.Join(seen, "; ")+"; client got "+check.Describe(r), c.Evidence()...)
	}
}
