package targets

import "time"

// Policy is what the service declares about its own resilience behaviour.
// Every zero value means "not declared": a check that needs a declaration the
// spec does not make is not applicable (and says so), or judges only what
// holds for every policy. Defaults documented here come from public sources,
// never from the reference stack.
type Policy struct {
	Retry       RetryPolicy       `yaml:"retry"`       // how the service retries its dependency calls
	Deadlines   DeadlinePolicy    `yaml:"deadlines"`   // which deadline headers it reads and forwards
	RateLimits  RateLimitPolicy   `yaml:"rate_limits"` // which routes it rate limits
	Idempotency IdempotencyPolicy `yaml:"idempotency"` // which operations are protected by a key
	Hedging     HedgingPolicy     `yaml:"hedging"`     // how it hedges its dependency calls
	Throttling  ThrottlingPolicy  `yaml:"throttling"`  // how it throttles calls a dependency refuses
}

// BackoffKind names a retry backoff formula.
type BackoffKind string

// The backoff kinds (Brooker, "Exponential Backoff And Jitter", AWS
// Architecture Blog, 2015).
const (
	BackoffUnknown      BackoffKind = "unknown"      // not declared: only "waits grow and are dispersed" is judged
	BackoffFull         BackoffKind = "full"         // wait n uniform in [0, min(cap, base·2ⁿ)]
	BackoffEqual        BackoffKind = "equal"        // wait n uniform in [v/2, v], v = min(cap, base·2ⁿ)
	BackoffDecorrelated BackoffKind = "decorrelated" // each wait uniform in [base, min(cap, 3·previous)]
	BackoffExponential  BackoffKind = "exponential"  // wait n = min(cap, base·2ⁿ) ± Jitter·that
)

// RetryPolicy is the service's retry policy towards its dependencies.
type RetryPolicy struct {
	// MaxAttempts caps attempts per logical request, the first included;
	// 0 = 3 (Google SRE book ch. 21 "Handling Overload": at most 3 attempts
	// per request; gRFC A6 allows at most 5).
	MaxAttempts int `yaml:"max_attempts"`
	// Backoff is the formula between attempts; empty = unknown.
	Backoff BackoffKind `yaml:"backoff"`
	// Base is the backoff's scale (the first wait's bound); 0 = not declared.
	Base time.Duration `yaml:"base"`
	// Cap bounds every wait; 0 = not declared.
	Cap time.Duration `yaml:"cap"`
	// Jitter is the relative spread of an exponential backoff (0.1 = ±10 %);
	// only for backoff exponential; 0 = no jitter declared.
	Jitter float64 `yaml:"jitter"`
	// BudgetRatio bounds retries as a share of requests under a sustained
	// outage; 0 = 0.1 (SRE book ch. 21: a per-client retry budget of 10 %).
	BudgetRatio float64 `yaml:"budget_ratio"`
	// BreakerRecovery is how soon after the dependency heals requests succeed
	// again (a circuit breaker's open time plus a probe); 0 = not declared.
	BreakerRecovery time.Duration `yaml:"breaker_recovery"`
}

// DeadlinePolicy says which deadline headers the service speaks.
type DeadlinePolicy struct {
	// Headers lists every deadline header the service reads (and forwards,
	// recomputed, to its dependencies); empty = conventions.deadline_header only.
	Headers []string `yaml:"headers"`
}

// RateLimitPolicy says which routes the service rate limits.
type RateLimitPolicy struct {
	// Operations names the rate-limited operations; empty = none declared
	// (the rate-limit suite then judges only what the service shows).
	Operations []string `yaml:"operations"`
	// Probe is a GET path that is rate limited and cheap to call; empty =
	// none (the suite never drives an undeclared GET).
	Probe string `yaml:"probe"`
	// Headers is the rate-limit header format the limited routes send;
	// empty = learned from observation (draft-10 when any response of a
	// limited route carries a RateLimit or RateLimit-Policy field).
	Headers RateLimitFormat `yaml:"headers"`
}

// RateLimitFormat names the rate-limit fields a service sends.
type RateLimitFormat string

// The rate-limit header formats.
const (
	// RateLimitDraft10 is RateLimit and RateLimit-Policy
	// (draft-ietf-httpapi-ratelimit-headers-10 §3, §4): RL-01 and RL-07
	// require them on every response of a limited route.
	RateLimitDraft10 RateLimitFormat = "draft-10"
	// RateLimitLegacy is X-RateLimit-Limit/-Remaining/-Reset only (the
	// draft's appendix "RateLimit header fields currently used on the web").
	RateLimitLegacy RateLimitFormat = "legacy"
	// RateLimitNone is no rate-limit fields at all (a 429 and maybe Retry-After).
	RateLimitNone RateLimitFormat = "none"
)

// rateLimitFormats are the formats a policy may declare.
var rateLimitFormats = []RateLimitFormat{RateLimitDraft10, RateLimitLegacy, RateLimitNone}

// IdempotencyPolicy says which operations an idempotency key protects.
type IdempotencyPolicy struct {
	// Operations names them; empty = every operation.
	Operations []string `yaml:"operations"`
	// KeyRequired says whether a request without a key is refused; nil =
	// true (draft-ietf-httpapi-idempotency-key-header-07 §2.7: "an operation
	// requiring this header"); false for keys optional by design, as at Stripe.
	KeyRequired *bool `yaml:"key_required"`
}

// KeyIsRequired reports whether a keyless request must be refused.
func (p IdempotencyPolicy) KeyIsRequired() bool { return p.KeyRequired == nil || *p.KeyRequired }

// HedgingPolicy says how the service hedges its dependency calls: while a
// call is still outstanding after Delay it sends another copy, up to
// MaxCopies in all, within Budget ("The Tail at Scale", Dean & Barroso,
// CACM 2013; gRFC A6 hedgingPolicy). The zero value declares no hedging.
type HedgingPolicy struct {
	// Delay is how long a copy is outstanding before the next is sent;
	// required when hedging is declared (gRFC A6 hedgingDelay).
	Delay time.Duration `yaml:"delay"`
	// MaxCopies caps the copies of one call, the first included; 0 = 2
	// (failsafe-go hedgepolicy's default of one hedge; gRFC A6 maxAttempts
	// counts the same way).
	MaxCopies int `yaml:"max_copies"`
	// Budget bounds hedged copies as a share of the calls in flight, so a
	// dependency slow for everyone is not sent twice the load; 0 = 0.1
	// (SRE book ch. 21's 10 % retry budget, which gRFC A6 applies to hedges).
	Budget float64 `yaml:"budget"`
}

// Declared reports whether the spec declares hedging at all.
func (p HedgingPolicy) Declared() bool { return p != HedgingPolicy{} }

// ThrottlingPolicy says how the service throttles its own calls to a
// dependency that refuses work (429, 503): adaptive, client-side
// throttling as in the SRE book ch. 21 "Client-Side Throttling". The zero
// value declares none.
type ThrottlingPolicy struct {
	// K is the multiplier of Eq. 21-1: calls are rejected locally with
	// probability max(0, (requests − K·accepts) / (requests + 1)), so about
	// K·accepts reach the dependency; 0 = not declared. failsafe-go's
	// adaptivethrottler WithFailureRateThreshold(t) is K = 1/(1−t).
	K float64 `yaml:"k"`
	// MaxRejection caps the local rejection rate, so some calls always
	// probe the dependency (failsafe-go's WithMaxRejectionRate, default
	// 0.9); 0 = 1, the book's formula uncapped.
	MaxRejection float64 `yaml:"max_rejection"`
	// Recovery is how soon after the dependency heals calls reach it at
	// the offered rate again; 0 = not judged.
	Recovery time.Duration `yaml:"recovery"`
}

// Declared reports whether the spec declares throttling at all.
func (p ThrottlingPolicy) Declared() bool { return p != ThrottlingPolicy{} }
