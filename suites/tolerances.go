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
		{Name: "retries in an outage and its recovery", Value: fmt.Sprintf("≤ %s·requests + %d, in each", h.Policy.Retry.ratioText(), a.retryFloor()),
			Why: "RB-05: policy.retry.budget_ratio (undeclared, the SRE book ch. 21's 10 %) plus the floor of RB-02"},
		{Name: "lockstep retries", Value: fmt.Sprintf("≤ %.0f %% in one bucket of %s", a.maxBucketShare()*100, h.bucketText()),
			Why: "BO-08: jitter spreads retries that failed together over the declared first wait's range; lockstep puts them in one bucket"},
		{Name: "heal streak", Value: h.streakText(),
			Why: "before every dependency-fault case (and HS-08..HS-10's BreakerFlush, the deadline checks' Warmup): Resilience4j's 10 half-open calls, or what refills a gRFC A6 retry throttle (example max_tokens 10) at the declared budget ratio"},
		{Name: "backoff sampling refill", Value: fmt.Sprintf("%d successes after each round", h.Policy.Retry.refill(4)),
			Why: "RB-15, BO-01..04, BO-08: ⌈a round's 4 failures / budget ratio⌉, so a retry throttle never starves the sample"},
		{Name: "Retry-After slack", Value: ra.tolerance(h).String(),
			Why: "HS-08: no call earlier than Retry-After minus this"},
		{Name: "DL-06 watch after the deadline", Value: dlWatchText(h),
			Why: "DL-06: how long a retry after the deadline is looked for"},
		{Name: "runner noise", Value: h.Noise.String(),
			Why: fmt.Sprintf("measured before the checks; every time slack is at least %d× the worse of the two, and above %s the timed checks are inconclusive (noisy runner)", noiseFactor, maxNoiseSlack)},
		{Name: "deadline slack", Value: max(dl.tolerance(), h.Noise.slack()).String(),
			Why: "DL-03, DL-04, DL-06, HS-18: answers, cancellations and budgets within the deadline plus this"},
		{Name: "quota slack", Value: fmt.Sprintf("%.0f %% per window", rl.quotaSlack()*100),
			Why: "RL-01q: admissions at twice the advertised rate within q minus this"},
	}
}

// streakText renders the heal streak and the suites' overrides of it.
func (h *Harness) streakText() string {
	out := h.Policy.Retry.streakText()
	if n := h.RetryAfter.BreakerFlush; n > 0 {
		out += fmt.Sprintf("; Retry-After cases %d (RetryAfterConfig.BreakerFlush)", n)
	}
	if n := h.Deadlines.Warmup; n != 0 {
		out += fmt.Sprintf("; deadline checks %d (DeadlineConfig.Warmup)", h.Deadlines.warmup(h))
	}
	return out
}
