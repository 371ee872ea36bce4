package deadlines

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// dlAnswersByBudget (HS-18): the dependency hangs; the caller's budget, not
// the dependency, decides when the target answers, and it answers 504.
func dlAnswersByBudget(ctx context.Context, cs *check.Case) check.Result {
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
	return c.judgeTimeout(r, front, found, b, fmt.Sprintf("a budget of %s in %s", dlMs(b), h.Conventions.DeadlineHeaderName()))
}

// dlAnswersWithoutBudget (HS-18b): no budget at all and a hanging
// dependency; the target must still bound the wait by its own maximum
// (Conventions.MaxBudget) instead of waiting on the dependency forever.
func dlAnswersWithoutBudget(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := dlBegin(ctx, cs)
	if !ok {
		return res
	}
	h := c.Harness
	if err := c.hang(); err != nil {
		return check.Inconclusive("%v", err)
	}
	limit := h.Conventions.BudgetCap()
	r := c.sendBudget(ctx, dlConventionFormat, -1, limit+c.tol+2*time.Second)
	front, found := c.front(ctx)
	// Without a caller's budget the target may also give up on its hung
	// dependency before its own maximum, answering 503: what matters is that
	// it answers by the maximum.
	return c.judgeTimeout(r, front, found, limit, fmt.Sprintf("no budget (the target's maximum is %s, conventions.max_budget)", dlMs(limit)),
		http.StatusServiceUnavailable)
}

// judgeTimeout passes when r is the timeout status within limit plus the
// suite tolerance, measured at the front proxy.
func (c *dlCase) judgeTimeout(r check.Reply, front faults.Entry, found bool, limit time.Duration, sent string, alsoOK ...int) check.Result {
	statuses := append([]int{c.cfg.timeoutStatus()}, alsoOK...)
	names := make([]string, len(statuses))
	for i, s := range statuses {
		names[i] = strconv.Itoa(s)
	}
	want := fmt.Sprintf("%s within %s + %s tolerance of the request, with %s and the dependency hanging",
		strings.Join(names, " or "), dlMs(limit), dlMs(c.tol), sent)
	t := dlTook(front, found, r)
	// late is a failure by how far past the bound it came: a stall of the
	// runner shorter than that cannot explain it.
	late := func(took time.Duration, obs string) check.Result {
		res := check.Fail(want, obs, c.Evidence()...)
		if res.Margin = took - limit - c.tol; res.Margin <= 0 {
			return res.Untimed() // an error within the bound: no lateness made it
		}
		res.Waited = check.Span{From: r.Sent, To: r.Sent.Add(r.Took)}
		return res
	}
	switch {
	case r.Err != nil:
		return late(r.Took, fmt.Sprintf("no answer after %s (%v)", dlMs(r.Took), r.Err))
	case !slices.Contains(statuses, r.Status):
		return check.Fail(want, fmt.Sprintf("%d after %s", r.Status, dlMs(t)), c.Evidence()...)
	case t > limit+c.tol:
		return late(t, fmt.Sprintf("%d after %s, %s past the bound", r.Status, dlMs(t), dlMs(t-limit)))
	}
	return check.Pass(want, fmt.Sprintf("%d after %s", r.Status, dlMs(t)), c.Evidence()...)
}

// dlExpiredBudget (DL-06b): a budget of zero is already spent; the target
// answers at once and starts no work (SRE book: check the deadline before
// each stage).
func dlExpiredBudget(ctx context.Context, cs *check.Case) check.Result {
	c, res, ok := dlBegin(ctx, cs)
	if !ok {
		return res
	}
	h := c.Harness
	r := c.sendBudget(ctx, dlConventionFormat, 0, c.tol+2*time.Second)
	check.Sleep(ctx, c.tol) // work started in the background shows up meanwhile
	front, found := c.front(ctx)
	status := c.cfg.timeoutStatus()
	want := fmt.Sprintf("%d within %s tolerance and no dependency call, for a budget of 0 in %s", status, dlMs(c.tol), h.Conventions.DeadlineHeaderName())
	t := dlTook(front, found, r)
	calls := c.calls()
	// late is a failure by how far past the tolerance the answer came,
	// over the wait the runner measured: a runner whose wake-ups came later
	// than that in all may have made it (a rerun decides).
	late := func(took time.Duration, obs string) check.Result {
		res := check.Fail(want, obs, c.Evidence()...)
		if res.Margin = took - c.tol; res.Margin <= 0 {
			return res.Untimed() // an error within the tolerance: no lateness made it
		}
		res.Waited = check.Span{From: r.Sent, To: r.Sent.Add(r.Took)}
		return res
	}
	switch {
	case len(calls) > 0 || h.Dependency.InFlight() > 0:
		return check.Fail(want, fmt.Sprintf("%d dependency calls (%d still open) for a request with no budget left; answered %s", len(calls), h.Dependency.InFlight(), check.Describe(r)), c.Evidence()...).Untimed()
	case r.Err != nil:
		return late(r.Took, fmt.Sprintf("no answer after %s (%v)", dlMs(r.Took), r.Err))
	case r.Status != status:
		return check.Fail(want, fmt.Sprintf("%d after %s, no dependency call", r.Status, dlMs(t)), c.Evidence()...).Untimed()
	case t > c.tol:
		return late(t, fmt.Sprintf("%d after %s, no dependency call", r.Status, dlMs(t)))
	}
	return check.Pass(want, fmt.Sprintf("%d after %s, no dependency call", r.Status, dlMs(t)), c.Evidence()...)
}
