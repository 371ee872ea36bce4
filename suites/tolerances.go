package suites

import (
	"fmt"
	"strconv"

	"github.com/resilcheck/resilcheck/reports"
)

// Tolerances lists the thresholds the suites judge by, with the values h's
// configuration gives them, so a reader of the report can weigh a verdict.
func (h *Harness) Tolerances() []reports.Tolerance {
	a, ra, dl, rl := h.Amplification, h.RetryAfter, h.Deadlines, h.RateLimits
	return []reports.Tolerance{
		{Name: "time bound slack", Value: h.tolerance().String(),
			Why: "bounds are one-sided: no earlier than the bound minus this slack, which absorbs a busy runner's scheduling"},
		{Name: "attempts per logical request", Value: strconv.Itoa(a.maxAttempts()),
			Why: "RB-01: the SRE book, gRPC and AWS cap attempts at 3"},
		{Name: "dependency calls per request in an outage", Value: fmt.Sprintf("≤ 1 + %.2f, + %d", a.retryRatio(), a.retryFloor()),
			Why: "RB-02: the SRE book's per-client retry ratio under 10 %"},
		{Name: "retry budget", Value: fmt.Sprintf("%.0f %% of requests + %.0f/s", a.percentCanRetry()*100, a.minRetriesPerSec()),
			Why: "RB-05: Finagle's RetryBudget defaults"},
		{Name: "lockstep retries", Value: fmt.Sprintf("≤ %.0f %% in one %s bucket", a.maxBucketShare()*100, a.bucket()),
			Why: "BO-08: jitter spreads retries that failed together"},
		{Name: "Retry-After slack", Value: ra.tolerance(h).String(),
			Why: "HS-08: no call earlier than Retry-After minus this"},
		{Name: "deadline slack", Value: dl.tolerance().String(),
			Why: "DL-03, DL-04, DL-06, HS-18: answers, cancellations and budgets within the deadline plus this"},
		{Name: "quota slack", Value: fmt.Sprintf("%.0f %% per window", rl.quotaSlack()*100),
			Why: "RL-01q: admissions at twice the advertised rate within q minus this"},
	}
}
