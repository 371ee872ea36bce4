package amplification

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

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
	declared := check.RetryPolicy{MaxAttempts: 5, Backoff: "exponential", Base: time.Second, Jitter: 0.1}
	with := func(f func(*check.RetryPolicy)) *check.Harness {
		p := declared
		f(&p)
		return &check.Harness{Policy: check.Policy{Retry: p}}
	}
	tests := []struct {
		name string
		h    *check.Harness
		s    *backoffSample
		want reports.Status
	}{
		{"as declared", with(func(*check.RetryPolicy) {}), s, reports.StatusPass},
		{"declared base 500 ms", with(func(p *check.RetryPolicy) { p.Base = 500 * time.Millisecond }), s, reports.StatusFail},
		{"declared jitter ±1 %", with(func(p *check.RetryPolicy) { p.Jitter = 0.01 }), s, reports.StatusFail},
		{"capped at 1 s, declared", with(func(p *check.RetryPolicy) { p.Cap = time.Second }), capped, reports.StatusPass},
		{"capped at 1 s, no cap declared", with(func(*check.RetryPolicy) {}), capped, reports.StatusFail},
	}
	for _, tt := range tests {
		if got := judgeExponential(tt.h, tt.s); got.Status != tt.want {
			t.Errorf("%s: BO-04 %s (%s), want %s", tt.name, got.Status, got.Observed, tt.want)
		}
	}
	if got := judgeRandomized(with(func(*check.RetryPolicy) {}), s); got.Status != reports.StatusPass {
		t.Errorf("RB-15 on ±10 %% jitter: %s (%s)", got.Status, got.Observed)
	}
	fixed := &backoffSample{rounds: 10}
	fixed.waits[0], fixed.waits[1] = waits(r, 30, around(1000, 0)), waits(r, 10, around(2000, 0))
	if got := judgeRandomized(with(func(p *check.RetryPolicy) { p.Jitter = 0 }), fixed); got.Status != reports.StatusFail {
		t.Errorf("RB-15 on a fixed exponential backoff: %s, want fail", got.Status)
	}
	// got's backoff: min(cap, base·2ⁿ) plus noise uniform in [0, 100 ms),
	// only 5 % of a 2 s wait, yet retries spread over 100 ms, twice the
	// harness's tolerance: dispersed, whatever jitter was declared.
	noise := func(v float64) func() float64 { return func() float64 { return v + 100*r.Float64() } }
	additive := &backoffSample{rounds: 10}
	additive.waits[0], additive.waits[1] = waits(r, 30, noise(1000)), waits(r, 20, noise(2000))
	if got := judgeRandomized(with(func(*check.RetryPolicy) {}), additive); got.Status != reports.StatusPass {
		t.Errorf("RB-15 on 2 s waits + [0, 100 ms) noise: %s (%s), want pass", got.Status, got.Observed)
	}
	narrow := &backoffSample{rounds: 10}
	narrow.waits[0], narrow.waits[1] = waits(r, 30, noise(1000)), waits(r, 20, func() float64 { return 2000 + 10*r.Float64() })
	if got := judgeRandomized(with(func(*check.RetryPolicy) {}), narrow); got.Status != reports.StatusFail {
		t.Errorf("RB-15 on 2 s waits + [0, 10 ms) noise: %s (%s), want fail", got.Status, got.Observed)
	}
}

// TestSampleBackoff_bounded: declared waits longer than the sampling bound
// are reported as not sampled, before any request is sent.
func TestSampleBackoff_bounded(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{Backoff: "exponential", Base: time.Minute}}}
	s := sampleBackoff(t.Context(), &check.Case{Harness: h})
	if !strings.Contains(s.reason, "not sampled") {
		t.Errorf("a 1 min declared base: reason %q, want it not sampled", s.reason)
	}
	if roundWaits(h, true) != time.Minute || roundWaits(h, false) != 3*time.Minute {
		t.Errorf("roundWaits = %s, %s; want 1m0s, 3m0s", roundWaits(h, true), roundWaits(h, false))
	}
}

func TestJudgedRecovery(t *testing.T) {
	t.Parallel()
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{BreakerRecovery: 30 * time.Second}}}
	if d, why := judgedRecovery(h); d != 30*time.Second || why != "" {
		t.Errorf("recoveryJudged = %s, %q", d, why)
	}
	h.Policy.Retry.BreakerRecovery = 0
	if _, why := judgedRecovery(h); why == "" {
		t.Error("recoveryJudged judges an undeclared recovery")
	}
}
