package suites

import (
	"fmt"

	"github.com/resilcheck/resilcheck/reports"
)

// Tolerances lists the thresholds the suites judge by, with the values h's
// configuration gives them, so a reader of the report can weigh a verdict.
func (h *Harness) Tolerances() []reports.Tolerance {
	a, ra, dl, rl := h.Amplification, h.RetryAfter, h.Deadlines, h.RateLimits
	return []reports.Tolerance{
		{Name: "time bound slack", Value: h.tolerance().String(),
			Why: "bounds are one-sided: no earlier than the bound minus this slack, which absorbs a busy runner's scheduling"},
		{Name: "attempts per logical request", Value: h.Policy.Retry.attemptsText(),
			Why: "RB-01, RB-03: policy.retry.max_attempts; undeclared, the SRE book ch. 21's cap of 3"},
		{Name: "dependency calls per request in an outage", Value: fmt.Sprintf("≤ 1 + %s, + %d", h.Policy.Retry.ratioText(), a.retryFloor()),
			Why: "RB-02: policy.retry.budget_ratio; undeclared, the SRE book ch. 21's per-client retry budget of 10 %"},
		{Name: "retry waits", Value: h.Policy.Retry.backoffText(),
			Why: "BO-01..04, HS-09, DL-06: policy.retry.backoff, base, cap and jitter; undeclared, only \"waits grow and are dispersed\" (RB-15) is judged"},
		{Name: "backoff sampling", Value: fmt.Sprintf("≤ %d rounds within %s", a.backoffRounds(), a.sampleWithin()),
			Why: "RB-15, BO-01..04, BO-08: the first two retries are sampled; the verdict says how many rounds ran"},
		{Name: "breaker recovery", Value: h.Policy.Retry.recoveryText(),
			Why: "RB-05: policy.retry.breaker_recovery; undeclared, how soon requests succeed again is not judged"},
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
