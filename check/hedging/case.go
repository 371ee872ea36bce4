package hedging

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// hdCase is one hedging check's case with the suite's settings.
type hdCase struct {
	*check.Case
	cfg Config
	tol time.Duration
	// cancelTol bounds how long a loser runs on after the winner's answer
	// (Config.cancelSlack).
	cancelTol time.Duration
	p         check.HedgingPolicy
}

// begin heals the target (a breaker opened by earlier checks would answer
// without calling the dependency at all), then restarts the case's journal
// window so the heal is not evidence.
func begin(ctx context.Context, c *check.Case) (*hdCase, check.Result, bool) {
	h := c.Harness
	if err := c.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return nil, check.Inconclusive("hedging: before %s: %v", c.ID, err), false
	}
	c.Restart(ctx)
	cfg := config(h)
	return &hdCase{Case: c, cfg: cfg, tol: cfg.tolerance(h), cancelTol: cfg.cancelSlack(h), p: h.Policy.Hedging}, check.Result{}, true
}

// hold holds the calls m matches at the dependency for d before passing
// them on, for the rest of the check.
func (c *hdCase) hold(m faults.Match, d time.Duration) error {
	return c.Fault(c.Harness.Dependency, m, faults.Delay{Duration: d})
}

// send sends one operation under a fresh key and tenant carrying a budget
// that outlasts wait, and waits at most wait plus a margin.
func (c *hdCase) send(ctx context.Context, wait time.Duration) (check.Reply, string) {
	key := c.Key()
	r := c.Harness.Send(ctx, check.Call{Key: key, Tenant: c.Tenant(), Amount: c.Amount(),
		Header: c.Harness.BudgetHeader(wait + time.Second), Timeout: wait + 3*time.Second})
	return r, key
}

// calls returns the request's own effectful dependency calls recorded
// after mark, once the proxies are quiet, in the order they were received
// (own: late copies of earlier requests left out).
func (c *hdCase) calls(ctx context.Context, mark uint64) []faults.Entry {
	calls, _ := c.own(ctx, mark, "")
	return calls
}

// copies groups calls into attempts, each with its copies: the calls
// overlapping in time (check.Overlapping, an answered call's journaled end
// taken the slack early), declared or not, so HD-04 and HD-05 see copies a
// target sends without saying so, and copies sent together with the first
// are copies too.
func (c *hdCase) copies(calls []faults.Entry) [][]faults.Entry {
	return check.Overlapping(calls, c.tol)
}

// key is the idempotency key a call carried to the dependency.
func (c *hdCase) key(e faults.Entry) string {
	return e.Header(c.Harness.Conventions.DependencyKeyName())
}

// describe renders calls as their starts relative to the first, outcomes
// and keys, for report lines.
func (c *hdCase) describe(calls []faults.Entry) string {
	if len(calls) == 0 {
		return "no call"
	}
	parts := make([]string, len(calls))
	for i, e := range calls {
		end := "answered " + check.AnswerText(e)
		if !e.ClientGone.IsZero() {
			end = fmt.Sprintf("cancelled at +%s", check.Ms(e.ClientGone.Sub(calls[0].Received)))
		}
		parts[i] = fmt.Sprintf("copy %d at +%s, %s, key %q", i+1, check.Ms(e.Received.Sub(calls[0].Received)), end, c.key(e))
	}
	return strings.Join(parts, "; ")
}

// mark is the journal position a request's calls are read from.
func (c *hdCase) mark(ctx context.Context) uint64 {
	c.Harness.Settle(ctx)
	return c.Harness.Journal.LastSeq()
}
