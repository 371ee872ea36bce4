package deadlines

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// dlPropagates returns DL-04 for one deadline header format (name, or
// dlConventionFormat for the target's own). The first dependency call hangs
// for a while, then fails with 503, so a target that retries makes a second
// call later in its budget: each call must carry a budget no larger than
// the one sent minus the time elapsed since it reached the target
// (T_out ≤ T_in − elapsed + ε, reachedTarget), which a hard-coded, fresh
// or copied budget does not satisfy.
func dlPropagates(name string) func(ctx context.Context, c *check.Case) check.Result {
	return func(ctx context.Context, cs *check.Case) check.Result {
		h := cs.Harness
		own := h.Conventions.DeadlineHeaderName()
		// A local: the closure runs again when a check is judged twice, and
		// the format it was made for must not change between runs.
		name := name
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
		want := fmt.Sprintf("every dependency call carries a budget ≤ %s sent in %s − time elapsed since it reached the target + %s tolerance (first call held %s, then 503)",
			dlMs(b), name, dlMs(c.tol), dlMs(hold))
		if len(h.Hops) > 0 {
			want = "every request between two tiers and " + strings.TrimPrefix(want, "every ")
		}
		if len(calls) == 0 {
			return check.Inconclusive("the target made no dependency call (it answered %s)", check.Describe(r))
		}
		seen, res, failed := c.hopBudgets(want, front, b)
		if failed {
			return res
		}
		for i, e := range calls {
			elapsed := e.Received.Sub(reachedTarget(front))
			allowed := b - elapsed + c.tol
			d, present, err := check.EntryBudget(e)
			switch {
			case err != nil:
				return check.Fail(want, fmt.Sprintf("call %d at +%s carried a malformed budget: %v", i+1, dlMs(elapsed), err), c.Evidence()...).Untimed()
			case !present:
				return check.Fail(want, fmt.Sprintf("call %d at +%s carried no budget (none of X-Request-Timeout-Ms, grpc-timeout, x-envoy-*-timeout-ms)", i+1, dlMs(elapsed)), c.Evidence()...).Untimed()
			case d > allowed:
				res := check.Fail(want, fmt.Sprintf("call %d at +%s carried %s; at most %s was left (%s over, tolerance included)",
					i+1, dlMs(elapsed), dlMs(d), dlMs(b-elapsed), dlMs(d-allowed)), c.Evidence()...)
				res.Margin = d - allowed
				return res
			}
			seen = append(seen, fmt.Sprintf("call %d at +%s: %s (%s left; margin %s)", i+1, dlMs(elapsed), dlMs(d), dlMs(b-elapsed), dlMs(b-elapsed-d)))
		}
		return check.Pass(want, strings.Join(seen, "; ")+"; client got "+check.Describe(r), c.Evidence()...)
	}
}

// reachedTarget is when the target can first have read the request the
// front proxy took: when the front wrote it on (Entry.Sent), after any
// dial and TLS handshake to the target, else when the front received it.
// A target counts its budget from when it reads the request; the time the
// front spent reaching it (a TLS handshake with a starved process took
// 220 ms beside two CPU hogs) is not the target's to subtract.
func reachedTarget(front faults.Entry) time.Time {
	if front.Sent.After(front.Received) {
		return front.Sent
	}
	return front.Received
}

// hopBudgets follows the budget b, sent at the front, hop by hop: every
// request one tier sends the next must carry a budget no larger than b less
// the time elapsed since (tolerance included). A failure is laid at the
// tier that sent the request.
func (c *dlCase) hopBudgets(want string, front faults.Entry, b time.Duration) (seen []string, _ check.Result, failed bool) {
	for _, hp := range c.Harness.Hops {
		// The request's own copies: a tier's health checks carry no budget.
		carried := slices.DeleteFunc(c.Entries(hp.Side()), func(e faults.Entry) bool { return e.Method != front.Method })
		for i, e := range carried {
			elapsed := e.Received.Sub(reachedTarget(front))
			allowed := b - elapsed + c.tol
			d, present, err := check.EntryBudget(e)
			var obs string
			margin := check.NotTimed
			switch {
			case err != nil:
				obs = fmt.Sprintf("on the hop %s, request %d at +%s carried a malformed budget: %v", hp.Name(), i+1, dlMs(elapsed), err)
			case !present:
				obs = fmt.Sprintf("on the hop %s, request %d at +%s carried no budget: %s dropped the caller's deadline", hp.Name(), i+1, dlMs(elapsed), hp.From)
			case d > allowed:
				obs = fmt.Sprintf("on the hop %s, request %d at +%s carried %s; at most %s was left (%s over, tolerance included)",
					hp.Name(), i+1, dlMs(elapsed), dlMs(d), dlMs(b-elapsed), dlMs(d-allowed))
				margin = d - allowed
			default:
				seen = append(seen, fmt.Sprintf("%s at +%s: %s", hp.Name(), dlMs(elapsed), dlMs(d)))
				continue
			}
			blame := check.Blame{Tier: hp.From, Why: fmt.Sprintf("%s sent %s that request", hp.From, hp.To)}
			res := check.Fail(want, obs+"; "+blame.String(), c.Evidence()...)
			res.Tier, res.Margin = blame.Tier, margin
			return nil, res, true
		}
	}
	return seen, check.Result{}, false
}
