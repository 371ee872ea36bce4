package deadlines

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// dlConventionFormat stands for the target's own deadline header
// (Conventions.DeadlineHeader) where a check takes a header name.
const dlConventionFormat = ""

// dlCase is one deadline check's case with the suite's settings.
type dlCase struct {
	*check.Case
	cfg Config
	tol time.Duration
}

// dlBegin warms the target up, then restarts the case's journal window so
// the warm-up is not evidence. When the target cannot be brought to a
// healthy state it returns ok false and the inconclusive result to report.
func dlBegin(ctx context.Context, c *check.Case) (dc *dlCase, res check.Result, ok bool) {
	if err := dlWarmup(ctx, c); err != nil {
		return nil, check.Inconclusive("%v", err), false
	}
	c.Restart(ctx)
	cfg := config(c.Harness)
	return &dlCase{Case: c, cfg: cfg, tol: max(cfg.tolerance(), c.Harness.Noise.Slack())}, check.Result{}, true
}

// dlWarmup heals the target before a deadline check: a breaker that counts
// the hung calls of earlier checks would otherwise answer 503 without
// calling the dependency at all, leaving nothing to judge. It runs in a
// sub-case, so it draws nothing from the check's generator.
func dlWarmup(ctx context.Context, c *check.Case) error {
	n := config(c.Harness).warmup(c.Harness)
	if n == 0 {
		return nil
	}
	w := c.Sub(ctx, c.ID+"~warmup")
	defer w.Done(ctx)
	if err := w.Heal(ctx, n, c.Harness.HealWithin()); err != nil {
		return fmt.Errorf("deadlines: warm-up before %s: %w", c.ID, err)
	}
	return nil
}

// budget draws a budget in [MinBudget, MaxBudget), whole milliseconds.
func (c *dlCase) budget() time.Duration {
	lo, hi := c.cfg.budgets()
	return lo + time.Duration(c.IntN(int((hi-lo)/time.Millisecond)))*time.Millisecond
}

// hang blackholes every call to the dependency for the rest of the check.
func (c *dlCase) hang() error {
	return c.Fault(c.Harness.Dependency, faults.Match{}, faults.Blackhole{})
}

// sendBudget sends one operation carrying budget in the header name
// (dlConventionFormat: the target's own); budget < 0 sends none. The client
// waits at most wait.
func (c *dlCase) sendBudget(ctx context.Context, name string, budget, wait time.Duration) check.Reply {
	if name == dlConventionFormat {
		name = c.Harness.Conventions.DeadlineHeaderName()
	}
	var hd http.Header
	if budget >= 0 {
		hd = http.Header{}
		headers.SetTimeout(hd, name, budget)
	}
	return c.Harness.Send(ctx, check.Call{Key: c.Key(), Tenant: c.Tenant(), Amount: c.Amount(), Header: hd, Timeout: wait})
}

// front returns the check's first request at the front proxy (the one the
// budget was sent with), once the proxies are quiet.
func (c *dlCase) front(ctx context.Context) (faults.Entry, bool) {
	c.Harness.Settle(ctx)
	var first faults.Entry
	found := false
	for _, e := range c.Entries("front") {
		if c.Harness.Operation.Path != "" && e.Path != c.Harness.Operation.Path {
			continue
		}
		if !found || e.Received.Before(first.Received) {
			first, found = e, true
		}
	}
	return first, found
}

// calls returns the check's dependency calls in the order they started.
func (c *dlCase) calls() []faults.Entry {
	es := c.Entries("dependency")
	slices.SortFunc(es, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	return es
}

// dlTook is how long the target took to answer e: from the front proxy
// receiving the request to the response being done, or the client's
// measure when the proxy has no finish time.
func dlTook(e faults.Entry, found bool, r check.Reply) time.Duration {
	if found && !e.Finished.IsZero() {
		return e.Finished.Sub(e.Received)
	}
	return r.Took
}

// quiet waits until the dependency has seen no new call and none in flight
// for period, so a target still retrying in the background after its
// answer is observed here rather than blamed on the next check. It gives up
// after limit.
func (c *dlCase) quiet(ctx context.Context, period, limit time.Duration) {
	until := time.Now().Add(limit)
	for ctx.Err() == nil && time.Now().Before(until) {
		c.Harness.Settle(ctx)
		seen := c.Harness.Journal.LastSeq()
		check.Sleep(ctx, period)
		if c.Harness.Journal.LastSeq() == seen && c.Harness.Dependency.InFlight() == 0 && c.Harness.Front.InFlight() == 0 {
			return
		}
	}
}

// dlMs renders d in whole milliseconds for report lines.
func dlMs(d time.Duration) string {
	return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
}

// dlSleep waits d or until ctx ends.
