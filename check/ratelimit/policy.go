package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
)

func policyStable(ctx context.Context, c *check.Case) check.Result {
	first := map[string]string{} // tenant → the first policy value seen
	return runScan(ctx, c, scan{applies: hasPolicy,
		want: "one RateLimit-Policy value per tenant across all its responses",
		judge: func(o check.Observation) string {
			v := o.Header.Get(headers.RateLimitPolicy)
			was, ok := first[o.Tenant]
			if !ok {
				first[o.Tenant] = v
				return ""
			}
			if v != was {
				return fmt.Sprintf("policy changed from %q to %q", was, v)
			}
			return ""
		},
		none: "no response carried RateLimit-Policy (RL-01 reports the absence)",
		summary: func([]check.Observation) string {
			return fmt.Sprintf("%d tenants", len(first))
		}})
}

func ratioBound(ctx context.Context, c *check.Case) check.Result {
	h := c.Harness
	factor := config(h).ratioFactor()
	return runScan(ctx, c, scan{applies: func(o check.Observation) bool { return len(o.Fields.Policies) > 0 && len(o.Fields.Limits) > 0 },
		want: fmt.Sprintf("r/t ≤ %g × q/w for each limit of a request-unit policy with a window (HARNESS factor %g)", factor, factor),
		judge: func(o check.Observation) string {
			for _, l := range o.Fields.Limits {
				p, ok := policyOf(o.Fields, l)
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
