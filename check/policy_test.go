package check

import (
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

func TestRetryPolicy_waitBounds(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name   string
		r      RetryPolicy
		n      int
		lo, hi time.Duration
		ok     bool
	}{
		{"full", RetryPolicy{Backoff: "full", Base: 50 * ms, Cap: time.Second}, 1, 0, 100 * ms, true},
		{"full, capped", RetryPolicy{Backoff: "full", Base: 50 * ms, Cap: 80 * ms}, 1, 0, 80 * ms, true},
		{"full, no cap", RetryPolicy{Backoff: "full", Base: time.Second}, 5, 0, 32 * time.Second, true},
		{"equal", RetryPolicy{Backoff: "equal", Base: 50 * ms}, 1, 50 * ms, 100 * ms, true},
		{"exponential ±10 %", RetryPolicy{Backoff: "exponential", Base: time.Second, Jitter: 0.1}, 1, 1800 * ms, 2200 * ms, true},
		{"exponential, capped", RetryPolicy{Backoff: "exponential", Base: time.Second, Cap: 3 * time.Second}, 3, 3 * time.Second, 3 * time.Second, true},
		{"decorrelated", RetryPolicy{Backoff: "decorrelated", Base: 10 * ms}, 1, 10 * ms, 90 * ms, true},
		{"decorrelated, capped", RetryPolicy{Backoff: "decorrelated", Base: 10 * ms, Cap: 50 * ms}, 1, 10 * ms, 50 * ms, true},
		{"unknown", RetryPolicy{Backoff: "unknown", Base: 10 * ms}, 0, 0, 0, false},
		{"no base", RetryPolicy{Backoff: "full"}, 0, 0, 0, false},
	}
	for _, tt := range tests {
		lo, hi, ok := tt.r.WaitBounds(tt.n)
		if lo != tt.lo || hi != tt.hi || ok != tt.ok {
			t.Errorf("%s: waitBounds(%d) = %s, %s, %v; want %s, %s, %v", tt.name, tt.n, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
}

func TestRetryPolicy_defaults(t *testing.T) {
	t.Parallel()
	var zero RetryPolicy
	if zero.Attempts() != 3 || zero.Ratio() != 0.1 {
		t.Errorf("undeclared: %d attempts, ratio %g; want the SRE book's 3 and 0.1", zero.Attempts(), zero.Ratio())
	}
	if d := (RetryPolicy{MaxAttempts: 5, BudgetRatio: 0.5}); d.Attempts() != 5 || d.Ratio() != 0.5 {
		t.Errorf("declared 5 and 0.5, got %d and %g", d.Attempts(), d.Ratio())
	}
	h := &Harness{}
	if h.HealWithin() != 6*time.Second {
		t.Errorf("healWithin undeclared = %s", h.HealWithin())
	}
	h.Policy.Retry.BreakerRecovery = 30 * time.Second
	if h.HealWithin() != 32*time.Second {
		t.Errorf("with a 30 s breaker: healWithin %s; want 32s", h.HealWithin())
	}
}

// TestNeeds_policy: each policy need is met by its declaration only.
func TestNeeds_policy(t *testing.T) {
	t.Parallel()
	full := Policy{Retry: RetryPolicy{Backoff: "full", Base: 50 * time.Millisecond}}
	tests := []struct {
		name string
		need Need
		p    Policy
		c    Conventions
		met  bool
	}{
		{"backoff declared", NeedBackoff("full"), full, Conventions{}, true},
		{"other backoff", NeedBackoff("equal"), full, Conventions{}, false},
		{"no backoff", NeedBackoff("full"), Policy{}, Conventions{}, false},
		{"grpc-timeout declared", NeedDeadlineHeader(headers.GRPCTimeout), Policy{DeadlineHeaders: []string{"GRPC-Timeout"}}, Conventions{}, true},
		{"grpc-timeout not declared", NeedDeadlineHeader(headers.GRPCTimeout), Policy{DeadlineHeaders: []string{"X-Request-Timeout-Ms"}}, Conventions{}, false},
		{"grpc-timeout by convention", NeedDeadlineHeader(headers.GRPCTimeout), Policy{}, Conventions{DeadlineHeader: "grpc-timeout"}, true},
		{"default convention only", NeedDeadlineHeader(headers.GRPCTimeout), Policy{}, Conventions{}, false},
		{"probe", NeedRateLimitProbe, Policy{RateLimitProbe: "/v1/limits"}, Conventions{}, true},
		{"no probe", NeedRateLimitProbe, Policy{RateLimited: []Operation{{}}}, Conventions{}, false},
		{"route by operation", NeedRateLimitedRoute, Policy{RateLimited: []Operation{{}}}, Conventions{}, true},
		{"no route", NeedRateLimitedRoute, Policy{}, Conventions{}, false},
		{"proxy tier possible", NeedProxyTier, Policy{}, Conventions{}, true},
		{"declared direct", NeedProxyTier, Policy{Direct: true}, Conventions{}, false},
	}
	for _, tt := range tests {
		why := tt.need.Unmet(&Harness{Policy: tt.p, Conventions: tt.c})
		if (why == "") != tt.met {
			t.Errorf("%s: Unmet = %q, want met %v", tt.name, why, tt.met)
		}
	}
}

func TestRetryPolicy_healStreak(t *testing.T) {
	tests := []struct {
		name           string
		r              RetryPolicy
		streak, refill int
	}{
		{"undeclared: 3 attempts at the SRE book's 0.1", RetryPolicy{}, 71, 40},
		{"the reference's 0.2", RetryPolicy{MaxAttempts: 3, BudgetRatio: 0.2}, 36, 20},
		{"5 attempts", RetryPolicy{MaxAttempts: 5, BudgetRatio: 0.1}, 91, 40},
		{"10 attempts: a full throttle", RetryPolicy{MaxAttempts: 10, BudgetRatio: 0.1}, 101, 40},
		{"a generous ratio: the half-open probes", RetryPolicy{BudgetRatio: 2.5}, 10, 10},
	}
	for _, tt := range tests {
		if got := tt.r.HealStreak(); got != tt.streak {
			t.Errorf("%s: healStreak() = %d, want %d", tt.name, got, tt.streak)
		}
		if got := tt.r.Refill(4); got != tt.refill {
			t.Errorf("%s: refill(4) = %d, want %d", tt.name, got, tt.refill)
		}
	}
}

func TestNeedRetries_Unmet(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		attempts int
		want     string
	}{
		{0, ""}, // not declared: the SRE book's 3
		{1, "the target declares max_attempts 1: it does not retry"},
		{2, ""},
		{5, ""},
	} {
		h := &Harness{Policy: Policy{Retry: RetryPolicy{MaxAttempts: tt.attempts}}}
		if got := NeedRetries.Unmet(h); got != tt.want {
			t.Errorf("max_attempts %d: Unmet = %q; want %q", tt.attempts, got, tt.want)
		}
	}
}
