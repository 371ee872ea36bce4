package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

func policyStable(ctx context.Context, c *Case) Result {
	first := map[string]string{} // tenant → the first policy value seen
	return c.runScan(ctx, scan{applies: hasPolicy,
		want: "one RateLimit-Policy value per tenant across all its responses",
		judge: func(o rlObs) string {
			v := o.header.Get(headers.RateLimitPolicy)
			was, ok := first[o.tenant]
			if !ok {
				first[o.tenant] = v
				return ""
			}
			if v != was {
				return fmt.Sprintf("policy changed from %q to %q", was, v)
			}
			return ""
		},
		none: "no response carried RateLimit-Policy (RL-01 reports the absence)",
		summary: func([]rlObs) string {
			return fmt.Sprintf("%d tenants", len(first))
		}})
}

func ratioBound(ctx context.Context, c *Case) Result {
	h := c.h
	factor := h.RateLimits.ratioFactor()
	return c.runScan(ctx, scan{applies: func(o rlObs) bool { return len(o.fields.Policies) > 0 && len(o.fields.Limits) > 0 },
		want: fmt.Sprintf("r/t ≤ %g × q/w for each limit of a request-unit policy with a window (HARNESS factor %g)", factor, factor),
		judge: func(o rlObs) string {
			for _, l := range o.fields.Limits {
				p, ok := policyOf(o.fields, l)
				if !ok || !l.HasReset || p.Window <= 0 || p.Unit != headers.UnitRequests {
					continue
				}
				adv := float64(l.Remaining) / max(l.Reset, time.Second).Seconds()
				pol := float64(p.Quota) / p.Window.Seconds()
				if adv > factor*pol {
					return fmt.Sprintf("r=%d over t=%s is %.1f/s against q/w = %.1f/s", l.Remaining, l.Reset, adv, pol)
				}
			}
			return ""
		},
		none: "no response carried both RateLimit-Policy and RateLimit"})
}

// policyOf returns the policy a limit reports on: the same name in draft
// -10, the only policy in the older forms.
func policyOf(f headers.RateLimitFields, l headers.Limit) (headers.Policy, bool) {
	for _, p := range f.Policies {
		if p.Name == l.Name {
			return p, true
		}
	}
	if len(f.Policies) == 1 && l.Name == "" {
		return f.Policies[0], true
	}
	return headers.Policy{}, false
}
