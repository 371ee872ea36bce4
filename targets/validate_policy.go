package targets

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// backoffKinds are the backoff formulas a policy may declare.
var backoffKinds = []BackoffKind{BackoffFull, BackoffEqual, BackoffDecorrelated, BackoffExponential, BackoffUnknown}

func (v *validator) checkPolicy() {
	p := v.t.Policy
	v.checkRetry(p.Retry)
	v.checkDeadlinePolicy(p.Deadlines)
	v.checkHedging(p.Hedging)
	v.checkThrottling(p.Throttling)
	v.operationNames("policy.rate_limits.operations", p.RateLimits.Operations)
	v.operationNames("policy.idempotency.operations", p.Idempotency.Operations)
	if pr := p.RateLimits.Probe; pr != "" && v.plain("policy.rate_limits.probe", pr, "the probe is a fixed GET path") && !strings.HasPrefix(pr, "/") {
		v.errf("policy.rate_limits.probe", "expected a path starting with /, got %q", pr)
	}
	if f := p.RateLimits.Headers; f != "" && !slices.Contains(rateLimitFormats, f) {
		v.errf("policy.rate_limits.headers", "unknown rate-limit header format %q; expected draft-10, legacy or none", f)
	}
}

func (v *validator) checkRetry(r RetryPolicy) {
	const at = "policy.retry."
	if r.MaxAttempts < 0 || r.MaxAttempts == 0 && v.written(at+"max_attempts") {
		v.errf(at+"max_attempts", "expected at least 1 (the first attempt counts), got %d", r.MaxAttempts)
	}
	formula := r.Backoff != "" && r.Backoff != BackoffUnknown
	if r.Backoff != "" && !slices.Contains(backoffKinds, r.Backoff) {
		v.errf(at+"backoff", "unknown backoff %q; expected full, equal, decorrelated, exponential or unknown", r.Backoff)
		formula = false
	}
	v.positive(at+"base", r.Base, r.Base < 0)
	v.positive(at+"cap", r.Cap, r.Cap < 0)
	v.positive(at+"breaker_recovery", r.BreakerRecovery, r.BreakerRecovery < 0)
	switch {
	case formula && r.Base == 0:
		v.keyErrf(at+"backoff", "backoff %s needs base (the first wait's bound), e.g. base: 50ms", r.Backoff)
	case r.Backoff == "" || r.Backoff == BackoffUnknown:
		if r.Base != 0 || r.Cap != 0 {
			v.keyErrf(at+"base", "base and cap describe a backoff formula; declare backoff: full, equal, decorrelated or exponential")
		}
	}
	if r.Cap > 0 && r.Base > 0 && r.Cap < r.Base {
		v.errf(at+"cap", "cap %s is below base %s; every wait would be the cap", r.Cap, r.Base)
	}
	switch {
	case r.Jitter < 0 || r.Jitter > 1:
		v.errf(at+"jitter", "expected a share in [0, 1] (0.1 = ±10 %%), got %g", r.Jitter)
	case r.Jitter != 0 && r.Backoff != BackoffExponential:
		v.errf(at+"jitter", "jitter is the spread of backoff exponential; full, equal and decorrelated define their own (backoff is %q)", r.Backoff)
	}
	if r.BudgetRatio < 0 {
		v.errf(at+"budget_ratio", "expected a share of requests ≥ 0 (0.1 = 10 %%), got %g", r.BudgetRatio)
	}
}

func (v *validator) checkDeadlinePolicy(d DeadlinePolicy) {
	seen := map[string]bool{}
	for i, h := range d.Headers {
		p := fmt.Sprintf("policy.deadlines.headers[%d]", i)
		switch key := strings.ToLower(h); {
		case !containsFold(deadlineHeaders, h, true):
			v.errf(p, "unsupported deadline header %q; expected one of: %s", h, strings.Join(deadlineHeaders, ", "))
		case seen[key]:
			v.errf(p, "duplicate deadline header %q", h)
		default:
			seen[key] = true
		}
	}
	sent := v.t.Conventions.DeadlineHeader
	switch {
	case len(d.Headers) == 0 || containsFold(d.Headers, cmp.Or(sent, DeadlineRequestTimeoutMs), true):
	case sent != "":
		v.errf("conventions.deadline_header", "%s is the header the harness sends, so policy.deadlines.headers must list it", sent)
	default:
		v.keyErrf("policy.deadlines.headers", "the harness sends %s (the default conventions.deadline_header), which this list leaves out; set conventions.deadline_header to a header the service reads", DeadlineRequestTimeoutMs)
	}
}

// operationNames checks that every name in list is a declared operation.
func (v *validator) operationNames(path string, list []string) {
	if len(v.t.Operations) == 0 {
		return // checkOperations says they are missing, or a launcher supplies them
	}
	var names []string
	for _, o := range v.t.Operations {
		names = append(names, o.Name)
	}
	for i, n := range list {
		if !containsFold(names, n, false) {
			v.errf(fmt.Sprintf("%s[%d]", path, i), "no operation is named %q; declared: %s", n, strings.Join(names, ", "))
		}
	}
}

// written reports whether path was written in the spec (false for a Target built in Go).
func (v *validator) written(path string) bool {
	if v.t.src == nil {
		return false
	}
	_, ok := v.t.src.at[path]
	return ok
}

func (v *validator) checkHedging(h HedgingPolicy) {
	const at = "policy.hedging."
	if !h.Declared() {
		if v.written("policy.hedging") {
			v.keyErrf(at+"delay", "hedging needs delay > 0, how long a call is outstanding before the next copy, e.g. delay: 200ms; leave policy.hedging out if the service does not hedge")
		}
		return
	}
	if h.Delay <= 0 {
		v.keyErrf(at+"delay", "hedging needs delay > 0, how long a call is outstanding before the next copy (a copy sent at once doubles every call), e.g. delay: 200ms")
	}
	if h.MaxCopies == 1 || h.MaxCopies < 0 {
		v.errf(at+"max_copies", "expected at least 2 (the first copy counts; 1 is no hedging), got %d", h.MaxCopies)
	}
	if h.Budget < 0 || h.Budget > 1 || h.Budget == 0 && v.written(at+"budget") {
		v.errf(at+"budget", "expected a share of calls in flight in (0, 1] (0.1 = 10 %%), got %g", h.Budget)
	}
}

func (v *validator) checkThrottling(t ThrottlingPolicy) {
	const at = "policy.throttling."
	if !t.Declared() {
		if v.written("policy.throttling") {
			v.keyErrf(at+"k", "throttling needs k ≥ 1, the multiplier of the SRE book's Eq. 21-1 (2 is its usual choice); leave policy.throttling out if the service does not throttle")
		}
		return
	}
	if t.K < 1 {
		v.keyErrf(at+"k", "throttling needs k ≥ 1, the multiplier of the SRE book's Eq. 21-1 (2 is its usual choice; failsafe-go's failure-rate threshold t is k = 1/(1−t)), got %g", t.K)
	}
	if t.MaxRejection < 0 || t.MaxRejection > 1 || t.MaxRejection == 0 && v.written(at+"max_rejection") {
		v.errf(at+"max_rejection", "expected a share in (0, 1] (failsafe-go's default is 0.9), got %g", t.MaxRejection)
	}
	v.positive(at+"recovery", t.Recovery, t.Recovery < 0)
}
