package idempotency

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// keyed makes an idempotency check of judge: it judges every operation an
// idempotency key protects (Harness.KeyedOperations), each on a case of
// its own, and reports the first failure, else the first inconclusive or
// not-applicable verdict, else every operation's pass.
func keyed(judge func(ctx context.Context, c *check.Case) check.Result) func(ctx context.Context, c *check.Case) check.Result {
	return func(ctx context.Context, c *check.Case) check.Result {
		if err := healThrottled(ctx, c); err != nil {
			return check.Inconclusive("idempotency: before %s: %v", c.ID, err)
		}
		ops := c.Harness.KeyedOperations
		if len(ops) == 0 || len(ops) == 1 && ops[0].Name == c.Harness.Operation.Name {
			return counted(c, judge(ctx, c))
		}
		var passes []string
		var want string
		var ev []faults.Entry
		var held *check.Result
		for _, op := range ops {
			h := *c.Harness
			h.Operation = op
			oc := h.NewCase(ctx, c.ID+"/"+op.Name)
			r := counted(oc, judge(ctx, oc))
			oc.Done(ctx)
			label := "operation " + op.Name + ": "
			switch r.Status {
			case reports.StatusFail:
				r.Observed = label + r.Observed
				return r
			case reports.StatusPass:
				passes = append(passes, label+r.Observed)
				want = r.Expected
				ev = append(ev, r.Evidence...)
			default:
				if held == nil || held.Status == reports.StatusNotApplicable {
					r.Reason = label + r.Reason
					held = &r
				}
			}
		}
		if held != nil {
			return *held
		}
		return check.Pass("for each operation: "+want, strings.Join(passes, "; "), ev...)
	}
}

// counted fails a verdict reached while the ledger and the probe disagreed
// about the effects: one of the target's two declared counters is wrong,
// so no count it certifies can be trusted.
func counted(c *check.Case, r check.Result) check.Result {
	switch d := c.Disagreed(); {
	case d == "":
		return r
	case r.Status == reports.StatusFail:
		r.Observed += " (and " + d + ")"
		return r
	case r.Status == reports.StatusPass:
		return check.Fail(r.Expected+"; the ledger and the probe agree", r.Observed+", but "+d, r.Evidence...)
	}
	return r
}

// needKeyKept is met unless the target declares a key TTL shorter than
// span, the time within which a check comes back with a key: a replay
// after the key expired is a fresh request, and judging it so would blame
// the target for keeping its word.
func needKeyKept(span time.Duration) check.Need {
	return check.Need{Name: fmt.Sprintf("key-ttl>=%s", span),
		Doc: fmt.Sprintf("the target keeps idempotency keys at least %s (conventions.key_ttl), the time within which the check reuses one", span),
		Unmet: func(h *check.Harness) string {
			if ttl := h.Conventions.KeyTTL; ttl > 0 && ttl < span {
				return fmt.Sprintf("the target keeps keys for %s (conventions.key_ttl), shorter than the %s within which this check reuses a key", ttl, span)
			}
			return ""
		}}
}

// healThrottled heals a target that declares client-side throttling before
// an idempotency case, in a sub-case the evidence leaves out: an earlier
// check on the same copy may have left its throttler's history full of
// refusals, and a first request refused locally (503) has nothing to say
// about keys. A target that declares no throttling keeps its checks' old
// way (a breaker is healed by the checks that open it).
func healThrottled(ctx context.Context, c *check.Case) error {
	h := c.Harness
	if h.Dependency == nil || !h.Policy.Throttling.Declared() {
		return nil
	}
	hc := c.Sub(ctx, c.ID+"~heal")
	defer hc.Done(ctx)
	if err := hc.Heal(ctx, h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		return err
	}
	c.Restart(ctx)
	return nil
}
