package builtin

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// TestAmplification_gatewayAnyTwoXX: a service that takes any 2xx from its
// dependency as done gets a conclusive HS-14: it passes alone, and fails
// with a gateway in front that re-sends its 5xx.
func TestAmplification_gatewayAnyTwoXX(t *testing.T) {
	t.Parallel()
	f := &policyFake{attempts: 3, base: 5 * time.Millisecond}
	h := policyFakeHarness(t, f, check.Policy{Retry: check.RetryPolicy{MaxAttempts: 3}})
	judged(t, h, "HS-14", reports.StatusPass)
	f.resend = 1
	judged(t, h, "HS-14", reports.StatusFail)
}

// TestAmplification_throttledSample: a gRFC A6 retry throttle (10 tokens,
// 0.1 per success) declared as budget ratio 0.1 still retries in every
// sampling round, so the backoff checks are conclusive.
func TestAmplification_throttledSample(t *testing.T) {
	t.Parallel()
	declared := check.RetryPolicy{MaxAttempts: 3, Backoff: "exponential", Base: 50 * time.Millisecond, Jitter: 0.9, BudgetRatio: 0.1}
	h := policyFakeHarness(t, &policyFake{attempts: 3, base: 50 * time.Millisecond, jitter: 0.9, throttle: true}, check.Policy{Retry: declared})
	h.Tolerance = 15 * time.Millisecond
	for _, id := range []string{"RB-15", "BO-04", "BO-08"} {
		judged(t, h, id, reports.StatusPass)
	}
}

// TestAmplification_smallBaseLockstep: BO-08's bucket scales with the
// declared first wait (or the sample), so full jitter over 16 ms is not
// failed (a fixed 10 ms bucket held most of it; it passes unless the
// runner stalls past its 5 ms bucket) and the same service without jitter
// still fails.
func TestAmplification_smallBaseLockstep(t *testing.T) {
	t.Parallel()
	declared := check.Policy{Retry: check.RetryPolicy{MaxAttempts: 3, Backoff: "full", Base: 16 * time.Millisecond}}
	// exponential ±100 % around 8 ms·2ⁿ is full jitter over 16 ms·2ⁿ.
	jittered := policyFakeHarness(t, &policyFake{attempts: 3, base: 8 * time.Millisecond, jitter: 1}, declared)
	judgedPassOrNoisy(t, jittered, "BO-08")
	lockstep := policyFakeHarness(t, &policyFake{attempts: 3, base: 16 * time.Millisecond}, declared)
	judged(t, lockstep, "BO-08", reports.StatusFail)
}

// TestAmplification_outageRetryBudget: RB-05 holds retries in an outage to
// the declared budget ratio: a service retrying every failed call once
// passes when it declares a ratio of 1 and fails when it declares 0.1.
func TestAmplification_outageRetryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("two sustained outages under load")
	}
	t.Parallel()
	h := policyFakeHarness(t, &policyFake{attempts: 2, base: time.Millisecond}, check.Policy{Retry: check.RetryPolicy{MaxAttempts: 2, BudgetRatio: 1}})
	judged(t, h, "RB-05", reports.StatusPass)
	h.Policy.Retry.BudgetRatio = 0.1
	judged(t, h, "RB-05", reports.StatusFail)
}

// TestRetryAfter_flushRefillsThrottle: after an outage drained a gRFC A6
// retry throttle, the successes sent before a Retry-After case refill it,
// so HS-09 sees the retry it judges.
func TestRetryAfter_flushRefillsThrottle(t *testing.T) {
	t.Parallel()
	f := &policyFake{attempts: 3, base: 20 * time.Millisecond, jitter: 0.5, throttle: true}
	h := policyFakeHarness(t, f, check.Policy{Retry: check.RetryPolicy{MaxAttempts: 3, Backoff: "exponential", Base: 20 * time.Millisecond, Jitter: 0.5, BudgetRatio: 0.1}})
	f.mu.Lock()
	f.tokens = 0 // as a sustained outage leaves it
	f.mu.Unlock()
	judged(t, h, "HS-09", reports.StatusPass)
}

// TestRetryAfter_largeQuota: a quota larger than the default exhaust limit
// is learned from the advertised remaining, so HS-01a drives the tenant
// into refusal instead of giving up after 400 requests.
func TestRetryAfter_largeQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("exhausts a quota of 600 and waits out its window")
	}
	t.Parallel()
	h := policyFakeHarness(t, &policyFake{attempts: 1, quota: 600, window: 3 * time.Second}, check.Policy{})
	h.Policy.RateLimited = []check.Operation{h.Operation}
	judged(t, h, "HS-01a", reports.StatusPass)
}

// TestCase_healThroughQuota: a declared tenant's quota (10 per second)
// slows the heal streak (71 at the default ratio) past healWithin without
// failing it: refusals are waited out and extend the bound.
func TestCase_healThroughQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out seven quota windows")
	}
	t.Parallel()
	h := policyFakeHarness(t, &policyFake{attempts: 1, quota: 10}, check.Policy{})
	h.Conventions.Tenants = []string{"acme"}
	c := h.NewCase(t.Context(), "heal-quota")
	defer c.Done(t.Context())
	start := time.Now()
	if err := c.Heal(t.Context(), h.Policy.Retry.HealStreak(), h.HealWithin()); err != nil {
		t.Fatalf("heal through a quota of 10/s: %v", err)
	}
	t.Logf("%d successes through a quota of 10/s in %s", h.Policy.Retry.HealStreak(), time.Since(start).Round(100*time.Millisecond))
}

// TestAmplification_outageAnswer: RB-03 takes any status that reports the
// outage (a gateway error or a back-off signal) and fails one that hides it.
func TestAmplification_outageAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("an outage under load per case")
	}
	t.Parallel()
	for _, tc := range []struct {
		status int
		want   reports.Status
	}{
		{http.StatusBadGateway, reports.StatusPass},
		{http.StatusGatewayTimeout, reports.StatusPass},
		{http.StatusInternalServerError, reports.StatusFail},
		{http.StatusOK, reports.StatusFail},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			h := policyFakeHarness(t, &policyFake{attempts: 2, base: time.Millisecond, failStatus: tc.status}, check.Policy{Retry: check.RetryPolicy{MaxAttempts: 2}})
			judged(t, h, "RB-03", tc.want)
		})
	}
}
