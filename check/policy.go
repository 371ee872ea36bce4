package check

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Policy is what the target declares about its own resilience behaviour
// (the spec's policy section). Zero values mean "not declared": a check
// that needs a declaration is not applicable, or judges only what holds for
// every policy; the defaults named here come from public sources.
type Policy struct {
	Retry RetryPolicy
	// DeadlineHeaders lists every deadline header the target reads;
	// empty = Conventions.DeadlineHeader only.
	DeadlineHeaders []string
	// RateLimited are the rate-limited operations; empty = none declared.
	RateLimited []Operation
	// RateLimitProbe is a cheap, rate-limited GET path; "" = none declared.
	RateLimitProbe string
	// RateLimitHeaders is the declared rate-limit header format: "draft-10",
	// "legacy" or "none"; "" = learned from the responses (ratelimit_format.go).
	RateLimitHeaders string
	// KeyOptional declares keys optional by design: a keyless request is
	// processed, not refused (IK-05 is then not applicable).
	KeyOptional bool
	// Direct declares that the target URL reaches the service's own code,
	// with no gateway or proxy tier in front (HS-14 is then not applicable).
	Direct bool
	// Hedging is how the target hedges its dependency calls; the zero value
	// declares none.
	Hedging HedgingPolicy
	// Throttling is how the target throttles calls its dependency refuses;
	// the zero value declares none.
	Throttling ThrottlingPolicy
	// Webhooks is how the target receives webhooks; the zero value
	// declares none.
	Webhooks WebhookPolicy
	// WebhookSender is how the target sends webhooks; the zero value
	// declares none.
	WebhookSender WebhookSenderPolicy
	// Queue is how the target consumes a queue; the zero value declares
	// none.
	Queue QueuePolicy
	// Outbox is how the target publishes the events of its effects; the
	// zero value declares none.
	Outbox OutboxPolicy
}

// HedgingPolicy is the target's declared hedging of its dependency calls
// ("The Tail at Scale", Dean & Barroso, CACM 2013; gRFC A6 hedgingPolicy).
type HedgingPolicy struct {
	// Delay is how long a copy is outstanding before the next is sent;
	// 0 = no hedging declared.
	Delay time.Duration
	// MaxCopies caps the copies of one call, the first included; 0 = 2.
	MaxCopies int
	// Budget bounds hedged copies as a share of the calls in flight; 0 = 0.1.
	Budget float64
}

// Declared reports whether the target declares hedging.
func (p HedgingPolicy) Declared() bool { return p.Delay > 0 }

// Copies is the declared cap on copies per call, or 2 (one hedge: the
// default of failsafe-go's hedgepolicy and the least a hedge can be).
func (p HedgingPolicy) Copies() int { return cmp.Or(p.MaxCopies, 2) }

// Share is the declared hedging budget, or 0.1 (SRE book ch. 21's 10 %
// retry budget, which gRFC A6's retry throttling applies to hedges).
func (p HedgingPolicy) Share() float64 { return OrFloat(p.Budget, 0.1) }

// ThrottlingPolicy is the target's declared client-side throttling of a
// dependency that refuses work (SRE book ch. 21, Eq. 21-1).
type ThrottlingPolicy struct {
	// K is Eq. 21-1's multiplier; 0 = no throttling declared.
	K float64
	// MaxRejection caps the local rejection rate; 0 = 1 (uncapped).
	MaxRejection float64
	// Recovery is how soon after the dependency heals calls reach it at the
	// offered rate again; 0 = not declared.
	Recovery time.Duration
}

// Declared reports whether the target declares throttling.
func (p ThrottlingPolicy) Declared() bool { return p.K > 0 }

// Rejection is the declared cap on local rejections, or 1.
func (p ThrottlingPolicy) Rejection() float64 { return OrFloat(p.MaxRejection, 1) }

// RetryPolicy is the target's declared retry policy towards its dependency.
type RetryPolicy struct {
	// MaxAttempts caps attempts per logical request, the first included;
	// 0 = 3 (SRE book ch. 21: at most 3 attempts per request).
	MaxAttempts int
	// Backoff is "full", "equal", "decorrelated" or "exponential"; "" or
	// "unknown" = not declared.
	Backoff string
	// Base is the first wait's bound and Cap bounds every wait; 0 = not
	// declared (a zero Cap leaves waits unbounded).
	Base, Cap time.Duration
	// Jitter is the relative spread of an exponential backoff (0.1 = ±10 %).
	Jitter float64
	// BudgetRatio bounds retries as a share of requests in a sustained
	// outage; 0 = 0.1 (SRE book ch. 21: a per-client retry budget of 10 %).
	BudgetRatio float64
	// BreakerRecovery is how soon after the dependency heals requests
	// succeed again; 0 = not declared.
	BreakerRecovery time.Duration
}

func (r RetryPolicy) Attempts() int  { return cmp.Or(r.MaxAttempts, 3) }
func (r RetryPolicy) Ratio() float64 { return OrFloat(r.BudgetRatio, 0.1) }

// AttemptsText and ratioText render the cap and ratio judged by, saying
// whether the target declared them or the SRE book's default applies.
func (r RetryPolicy) AttemptsText() string {
	if r.MaxAttempts > 0 {
		return fmt.Sprintf("%d (declared)", r.MaxAttempts)
	}
	return "3 (not declared: the SRE book's default)"
}

func (r RetryPolicy) RatioText() string {
	if r.BudgetRatio > 0 {
		return fmt.Sprintf("%.2f (declared)", r.BudgetRatio)
	}
	return "0.10 (not declared: the SRE book's default)"
}

// BackoffText renders the declared backoff.
func (r RetryPolicy) BackoffText() string {
	if !r.Formula() {
		return "not declared"
	}
	out := fmt.Sprintf("%s, base %s, cap %s", r.Backoff, r.Base, r.CapText())
	if r.Backoff == "exponential" {
		out += fmt.Sprintf(", jitter ±%g", r.Jitter)
	}
	return out + " (declared)"
}

// RecoveryText renders the declared breaker recovery.
func (r RetryPolicy) RecoveryText() string {
	if r.BreakerRecovery <= 0 {
		return "not declared"
	}
	return r.BreakerRecovery.String() + " (declared)"
}

// Formula reports whether a backoff formula is declared (with its base).
func (r RetryPolicy) Formula() bool {
	return r.Base > 0 && slices.Contains([]string{"full", "equal", "decorrelated", "exponential"}, r.Backoff)
}

// Ceiling is v = min(Cap, Base·2ⁿ) for retry n (from 0); Cap 0 is no cap.
func (r RetryPolicy) Ceiling(n int) time.Duration {
	if r.Cap <= 0 {
		return CeilFor(r.Base, time.Duration(1<<62), n)
	}
	return CeilFor(r.Base, r.Cap, n)
}

// WaitBounds is the range the declared formula puts retry n's wait in
// (decorrelated: over every previous wait); ok is false when none is declared.
func (r RetryPolicy) WaitBounds(n int) (lo, hi time.Duration, ok bool) {
	if !r.Formula() {
		return 0, 0, false
	}
	v := r.Ceiling(n)
	switch r.Backoff {
	case "equal":
		return v / 2, v, true
	case "exponential":
		return time.Duration((1 - r.Jitter) * float64(v)), time.Duration((1 + r.Jitter) * float64(v)), true
	case "decorrelated":
		hi = r.Base
		for range n + 1 {
			hi = 3 * hi
			if r.Cap > 0 && hi >= r.Cap {
				return r.Base, r.Cap, true
			}
		}
		return r.Base, hi, true
	}
	return 0, v, true
}

// SpeaksDeadline reports whether the target declares it reads the deadline
// header name.
func (h *Harness) SpeaksDeadline(name string) bool {
	declared := h.Policy.DeadlineHeaders
	if len(declared) == 0 {
		declared = []string{h.Conventions.DeadlineHeaderName()}
	}
	return slices.ContainsFunc(declared, func(d string) bool { return http.CanonicalHeaderKey(d) == http.CanonicalHeaderKey(name) })
}

// HealWithin bounds a wait for the target to serve again after earlier
// failures: 6 s (Hystrix's 5 s circuitBreaker.sleepWindowInMilliseconds
// default and a second for the probe), or the declared breaker recovery
// plus 2 s when longer.
func (h *Harness) HealWithin() time.Duration {
	return max(6*time.Second, h.Policy.Retry.BreakerRecovery+2*time.Second)
}

// NeedBackoff: the target declares the backoff formula kind, with its base.
func NeedBackoff(kind string) Need {
	return Need{Name: "backoff " + kind,
		Doc: fmt.Sprintf("the target declares backoff %s with its base (policy.retry.backoff, base)", kind),
		Unmet: func(h *Harness) string {
			r := h.Policy.Retry
			switch {
			case r.Backoff == "" || r.Backoff == "unknown":
				return "the target declares no backoff formula (policy.retry.backoff)"
			case r.Backoff != kind:
				return fmt.Sprintf("the target declares %s backoff, not %s", r.Backoff, kind)
			case !r.Formula():
				return "the target declares no backoff base (policy.retry.base)"
			}
			return ""
		}}
}

// NeedRetries: the target may retry its dependency calls. One that declares
// max_attempts 1 declares it does not, so the checks that judge how it
// retries (its waits, its Retry-After handling) have nothing to judge; the
// checks that hold for it too (exactly one call, no retry of a 400) still run.
var NeedRetries = Need{Name: "retries",
	Doc: "the target may retry its dependency calls (the spec does not declare policy.retry.max_attempts: 1)",
	Unmet: func(h *Harness) string {
		if h.Policy.Retry.MaxAttempts == 1 {
			return "the target declares max_attempts 1: it does not retry"
		}
		return ""
	}}

// NeedDeadlineHeader: the target declares it reads the deadline header name.
func NeedDeadlineHeader(name string) Need {
	return Need{Name: "deadline header " + strings.ToLower(name),
		Doc: fmt.Sprintf("the target declares it reads %s (policy.deadlines.headers, or conventions.deadline_header)", strings.ToLower(name)),
		Unmet: func(h *Harness) string {
			if !h.SpeaksDeadline(name) {
				return fmt.Sprintf("the target does not declare %s among the deadline headers it reads (policy.deadlines.headers)", name)
			}
			return ""
		}}
}

var (
	// NeedRateLimitProbe: the target declares a cheap rate-limited GET to
	// drive into refusal.
	NeedRateLimitProbe = Need{Name: "rate-limit probe",
		Doc: "the target declares a cheap rate-limited GET to drive into refusal (policy.rate_limits.probe)",
		Unmet: func(h *Harness) string {
			if h.Policy.RateLimitProbe == "" {
				return "the target declares no rate-limited GET to drive (policy.rate_limits.probe)"
			}
			return ""
		}}
	// NeedRateLimitedRoute: the target declares at least one rate-limited
	// route, whose every response must then describe the limit.
	NeedRateLimitedRoute = Need{Name: "rate-limited route",
		Doc: "the target declares a rate-limited route: an operation or the probe (policy.rate_limits)",
		Unmet: func(h *Harness) string {
			if h.Policy.RateLimitProbe == "" && len(h.Policy.RateLimited) == 0 {
				return "the target declares no rate-limited route (policy.rate_limits)"
			}
			return ""
		}}
)

// CapText renders the declared cap, "no cap" when none is declared.
func (r RetryPolicy) CapText() string {
	if r.Cap <= 0 {
		return "no cap"
	}
	return r.Cap.String()
}

// CeilFor is min(maxD, base·2ⁿ) without overflow.
func CeilFor(base, maxD time.Duration, n int) time.Duration {
	d := base
	for i := 0; i < n && d < maxD; i++ {
		d *= 2
	}
	return min(d, maxD)
}
