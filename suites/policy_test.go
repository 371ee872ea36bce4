package suites

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
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
	if h.HealWithin() != 32*time.Second || h.RetryAfter.flushWithin(h) != 32*time.Second {
		t.Errorf("with a 30 s breaker: healWithin %s, flushWithin %s; want 32s", h.HealWithin(), h.RetryAfter.flushWithin(h))
	}
	if d, why := judgedRecovery(h); d != 30*time.Second || why != "" {
		t.Errorf("recoveryJudged = %s, %q", d, why)
	}
	h.Policy.Retry.BreakerRecovery = 0
	if _, why := judgedRecovery(h); why == "" {
		t.Error("recoveryJudged judges an undeclared recovery")
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

func TestLimitedRoutes(t *testing.T) {
	t.Parallel()
	refund := Operation{Request: func(v Values, _ bool) (Request, error) {
		return Request{Method: http.MethodPut, Path: "/v1/refunds/" + v.Key + "?tenant=" + v.Tenant}, nil
	}}
	h := &Harness{Policy: Policy{RateLimitProbe: "/v1/limits", RateLimited: []Operation{refund}}}
	routes := limitedRoutes(h)
	tests := []struct {
		method, path string
		want         bool
	}{
		{"GET", "/v1/limits", true},
		{"POST", "/v1/limits", false},
		{"PUT", "/v1/refunds/abc", true},
		{"PUT", "/v1/refunds/abc/extra", false},
		{"GET", "/v1/refunds/abc", false},
		{"POST", "/v1/payments", false},
	}
	for _, tt := range tests {
		if got := anyRoute(routes, tt.method, tt.path); got != tt.want {
			t.Errorf("%s %s: declared route %v, want %v", tt.method, tt.path, got, tt.want)
		}
	}
}

// TestBackoffJudges_exponential: BO-04 holds a sample to the declared base,
// cap and jitter, and RB-15 sees a ±10 % exponential backoff as dispersed.
func TestBackoffJudges_exponential(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	around := func(v, j float64) func() float64 {
		return func() float64 { return v * (1 + j*(2*r.Float64()-1)) }
	}
	s := &backoffSample{rounds: 10}
	s.waits[0], s.waits[1] = waits(r, 30, around(1000, 0.1)), waits(r, 10, around(2000, 0.1))
	capped := &backoffSample{rounds: 10}
	capped.waits[0], capped.waits[1] = waits(r, 30, around(1000, 0.1)), waits(r, 10, around(1000, 0.1))
	declared := RetryPolicy{MaxAttempts: 5, Backoff: "exponential", Base: time.Second, Jitter: 0.1}
	with := func(f func(*RetryPolicy)) *Harness {
		p := declared
		f(&p)
		return &Harness{Policy: Policy{Retry: p}}
	}
	tests := []struct {
		name string
		h    *Harness
		s    *backoffSample
		want reports.Status
	}{
		{"as declared", with(func(*RetryPolicy) {}), s, reports.StatusPass},
		{"declared base 500 ms", with(func(p *RetryPolicy) { p.Base = 500 * time.Millisecond }), s, reports.StatusFail},
		{"declared jitter ±1 %", with(func(p *RetryPolicy) { p.Jitter = 0.01 }), s, reports.StatusFail},
		{"capped at 1 s, declared", with(func(p *RetryPolicy) { p.Cap = time.Second }), capped, reports.StatusPass},
		{"capped at 1 s, no cap declared", with(func(*RetryPolicy) {}), capped, reports.StatusFail},
	}
	for _, tt := range tests {
		if got := judgeExponential(tt.h, tt.s); got.Status != tt.want {
			t.Errorf("%s: BO-04 %s (%s), want %s", tt.name, got.Status, got.Observed, tt.want)
		}
	}
	if got := judgeRandomized(with(func(*RetryPolicy) {}), s); got.Status != reports.StatusPass {
		t.Errorf("RB-15 on ±10 %% jitter: %s (%s)", got.Status, got.Observed)
	}
	fixed := &backoffSample{rounds: 10}
	fixed.waits[0], fixed.waits[1] = waits(r, 30, around(1000, 0)), waits(r, 10, around(2000, 0))
	if got := judgeRandomized(with(func(p *RetryPolicy) { p.Jitter = 0 }), fixed); got.Status != reports.StatusFail {
		t.Errorf("RB-15 on a fixed exponential backoff: %s, want fail", got.Status)
	}
	// got's backoff: min(cap, base·2ⁿ) plus noise uniform in [0, 100 ms),
	// only 5 % of a 2 s wait, yet retries spread over 100 ms, twice the
	// harness's tolerance: dispersed, whatever jitter was declared.
	noise := func(v float64) func() float64 { return func() float64 { return v + 100*r.Float64() } }
	additive := &backoffSample{rounds: 10}
	additive.waits[0], additive.waits[1] = waits(r, 30, noise(1000)), waits(r, 20, noise(2000))
	if got := judgeRandomized(with(func(*RetryPolicy) {}), additive); got.Status != reports.StatusPass {
		t.Errorf("RB-15 on 2 s waits + [0, 100 ms) noise: %s (%s), want pass", got.Status, got.Observed)
	}
	narrow := &backoffSample{rounds: 10}
	narrow.waits[0], narrow.waits[1] = waits(r, 30, noise(1000)), waits(r, 20, func() float64 { return 2000 + 10*r.Float64() })
	if got := judgeRandomized(with(func(*RetryPolicy) {}), narrow); got.Status != reports.StatusFail {
		t.Errorf("RB-15 on 2 s waits + [0, 10 ms) noise: %s (%s), want fail", got.Status, got.Observed)
	}
}

// TestSampleBackoff_bounded: declared waits longer than the sampling bound
// are reported as not sampled, before any request is sent.
func TestSampleBackoff_bounded(t *testing.T) {
	t.Parallel()
	h := &Harness{Policy: Policy{Retry: RetryPolicy{Backoff: "exponential", Base: time.Minute}}}
	s := sampleBackoff(t.Context(), &Case{Harness: h})
	if !strings.Contains(s.reason, "not sampled") {
		t.Errorf("a 1 min declared base: reason %q, want it not sampled", s.reason)
	}
	if roundWaits(h, true) != time.Minute || roundWaits(h, false) != 3*time.Minute {
		t.Errorf("roundWaits = %s, %s; want 1m0s, 3m0s", roundWaits(h, true), roundWaits(h, false))
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
