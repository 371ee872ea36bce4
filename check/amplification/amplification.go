package amplification

import (
	"cmp"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

const (
	Name     = "retry-amplification"
	sreCh21  = "Google SRE book ch. 21 \"Handling Overload\""
	sreCh22  = "Google SRE book ch. 22 \"Addressing Cascading Failures\""
	brooker  = "Brooker 2015, \"Exponential Backoff And Jitter\""
	rfc9110R = "RFC 9110 §9.2.2"
)

// Config tunes the retry-amplification suite. Zero values mean
// the documented defaults, each taken from the source named. What the
// target declares (attempt cap, backoff, budget ratio, breaker recovery)
// comes from Harness.Policy, never from here.
type Config struct {
	// RetryFloor is the retries always allowed on top of the declared budget
	// ratio [3: Envoy's min_retry_concurrency and failsafe-go's minimum concurrency].
	RetryFloor int
	// MaxRecovery is the longest declared breaker recovery RB-05 watches
	// under load; a longer one is reported as not verified [60 s].
	MaxRecovery time.Duration
	// BackoffRounds is the most rounds of simultaneous failures that sample
	// the backoff [21: about 56 waits after the first failure (28 of them from
	// 4 requests failing together) and 28 after the second; enough for the
	// KS test to reject lockstep, and for RB-15's growth test (judged on 20
	// second waits or more) to err on a full-jitter target less than once in
	// 10⁵ runs].
	BackoffRounds int
	// SampleWithin bounds the time the rounds take: with long declared waits
	// fewer rounds are driven, and the verdicts say how many [30 s: the 14
	// rounds with a declared 1 s exponential base, whose rounds hold
	// requests for 1 s and 1 + 2 s].
	SampleWithin time.Duration
	// Bucket and MaxBucketShare are BO-08's lockstep test: no more than
	// MaxBucketShare of a fleet's retries may land in one Bucket [0.7; the
	// bucket is derived (lockstepBucket) unless set: a fifth of the
	// declared first wait's spread; declared narrower than 25 ms, a tenth
	// of the sampled median first wait within [5 ms, 10 ms]; undeclared,
	// 10 ms. A uniform spread then puts ~20 % (declared) in one bucket, or
	// undeclared 10 ms over its range (≤ 20 % from a 50 ms range on), more
	// than 70 % in fewer than 1 run in 10⁴ with 16+ retries; lockstep puts
	// ~100 % in one].
	Bucket         time.Duration
	MaxBucketShare float64
}

func (c Config) retryFloor() int { return cmp.Or(c.RetryFloor, 3) }
func (c Config) maxRecovery() time.Duration {
	return check.OrDuration(c.MaxRecovery, time.Minute)
}
func (c Config) backoffRounds() int { return cmp.Or(c.BackoffRounds, 21) }
func (c Config) sampleWithin() time.Duration {
	return check.OrDuration(c.SampleWithin, 30*time.Second)
}
func (c Config) maxBucketShare() float64 { return check.OrFloat(c.MaxBucketShare, 0.7) }

// Amplification returns the retry-amplification suite: attempts per logical request, retries per request under an
// outage, layered retries, and the shape of the backoff, all measured at the
// dependency proxy.
func checks() []check.Check {
	return []check.Check{
		{ID: "RB-01b", Suite: Name, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: "gRFC A6 (Retryable Status Codes); Google AIP-194 (only UNAVAILABLE is retried); AWS SDKs and Tools Reference Guide \"Retry behavior\"; Envoy router filter docs (retriable-4xx)",
			Title: "a non-retryable answer (400, 401, 422; from a gRPC dependency INVALID_ARGUMENT, UNAUTHENTICATED, FAILED_PRECONDITION) is not retried: exactly one call", Run: nonRetryable},
		{ID: "HS-14", Suite: Name, Level: reports.LevelMustNot, Needs: []check.Need{check.NeedDependency, check.NeedProxyTier}, Source: rfc9110R + " (\"A proxy MUST NOT automatically retry non-idempotent requests\")",
			Title: "a gateway does not re-send a failed POST to the service behind it", Run: gatewayNoRetry},
		{ID: "RB-15", Suite: Name, Takes: 2 * time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency, check.NeedRetries}, Source: sreCh22 + " (\"Always use randomized exponential backoff\"); " + brooker,
			Title: "retry waits grow exponentially and are dispersed, never fixed or synchronized", Run: randomizedBackoff},
		{ID: "BO-01", Suite: Name, Timed: true, Level: reports.LevelConvention, Needs: []check.Need{check.NeedDependency, check.NeedBackoff("full"), check.NeedRetries}, Source: brooker + " (Full Jitter); aws-arch-backoff-simulator",
			Title: "full jitter: retry n waits uniformly in [0, min(cap, base·2ⁿ)]", Run: jitterFormula("full")},
		{ID: "BO-02", Suite: Name, Timed: true, Level: reports.LevelConvention, Needs: []check.Need{check.NeedDependency, check.NeedBackoff("equal"), check.NeedRetries}, Source: brooker + " (Equal Jitter)",
			Title: "equal jitter: retry n waits uniformly in [v/2, v], v = min(cap, base·2ⁿ)", Run: jitterFormula("equal")},
		{ID: "BO-03", Suite: Name, Timed: true, Level: reports.LevelConvention, Needs: []check.Need{check.NeedDependency, check.NeedBackoff("decorrelated"), check.NeedRetries}, Source: brooker + " (Decorrelated Jitter)",
			Title: "decorrelated jitter: each wait in [base, min(cap, 3·previous wait)]", Run: jitterFormula("decorrelated")},
		{ID: "BO-04", Suite: Name, Timed: true, Level: reports.LevelConvention, Needs: []check.Need{check.NeedDependency, check.NeedBackoff("exponential"), check.NeedRetries}, Source: "gRFC A6 \"gRPC Retry Design\" (backoff ±20 %); " + brooker,
			Title: "exponential backoff with declared jitter j: retry n waits within [(1−j)·v, (1+j)·v], v = min(cap, base·2ⁿ)", Run: jitterFormula("exponential")},
		{ID: "BO-08", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency, check.NeedRetries}, Source: brooker + "; " + sreCh22 + " (retry ripples)",
			Title: "requests failing together do not retry in lockstep", Run: fleetLockstep},
		{ID: "RB-01", Suite: Name, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreCh21 + " \"Deciding to Retry\"; gRFC A6; AWS SDK retry behavior",
			Title: "attempts per logical request stay within the cap (503 without Retry-After, reset, hang)", Run: attemptCap},
		{ID: "RB-01p", Suite: Name, Takes: rbExplore, Explores: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreCh21 + " \"Deciding to Retry\" (a property over random outage schedules); gRFC A6; RFC 9110 §10.2.3",
			Title: "under random outage scripts (503, 429 with and without Retry-After, reset, hang, slow success, recovery): attempts within the cap, none after recovery, after a success the target read, or before a Retry-After", Run: retryProperty},
		{ID: "HS-13", Suite: Name, Level: reports.LevelShouldNot, Needs: []check.Need{check.NeedDependency}, Source: rfc9110R,
			Title: "a retried POST to the dependency carries the same Idempotency-Key on every attempt", Run: keyedRetries},
		{ID: "RB-03", Suite: Name, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreCh21 + " (Figure 21-2); " + sreCh22 + " (\"4^3 = 64 attempts\")",
			Title: "under load, retries happen at one layer only: attempts per request ≤ one layer's cap", Run: oneLayer},
		{ID: "RB-02", Suite: Name, Takes: 1500 * time.Millisecond, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: sreCh21 + " \"Deciding to Retry\"",
			Title: "a sustained outage amplifies calls to the dependency by at most the retry ratio", Run: outageAmplification},
		{ID: "RB-05", Suite: Name, Takes: 3500 * time.Millisecond, Timed: true, Level: reports.LevelConvention, Needs: []check.Need{check.NeedDependency}, Source: sreCh21 + " (per-client retry budget); " + sreCh22,
			Title: "retries fall off under a sustained outage and calls come back without a storm", Run: outageRecovery},
	}
}

// tolerances are the amplification suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	a := config(h)
	return []reports.Tolerance{
		{Name: "attempts per logical request", Value: h.Policy.Retry.AttemptsText(),
			Why: "RB-01, RB-03: policy.retry.max_attempts; undeclared, the SRE book ch. 21's cap of 3"},
		{Name: "dependency calls per request in an outage", Value: fmt.Sprintf("≤ 1 + %s, + %d", h.Policy.Retry.RatioText(), a.retryFloor()),
			Why: "RB-02: policy.retry.budget_ratio; undeclared, the SRE book ch. 21's per-client retry budget of 10 %"},
		{Name: "retry waits", Value: h.Policy.Retry.BackoffText(),
			Why: "BO-01..04, HS-09, DL-06: policy.retry.backoff, base, cap and jitter; undeclared, only \"waits grow and are dispersed\" (RB-15) is judged"},
		{Name: "backoff sampling", Value: fmt.Sprintf("≤ %d rounds within %s", a.backoffRounds(), a.sampleWithin()),
			Why: "RB-15, BO-01..04, BO-08: the first two retries are sampled; the verdict says how many rounds ran"},
		{Name: "breaker recovery", Value: h.Policy.Retry.RecoveryText(),
			Why: "RB-05: policy.retry.breaker_recovery; undeclared, how soon requests succeed again is not judged"},
		{Name: "retries in an outage and its recovery", Value: fmt.Sprintf("≤ %s·requests + %d, in each", h.Policy.Retry.RatioText(), a.retryFloor()),
			Why: "RB-05: policy.retry.budget_ratio (undeclared, the SRE book ch. 21's 10 %) plus the floor of RB-02"},
		{Name: "lockstep retries", Value: fmt.Sprintf("≤ %.0f %% in one bucket of %s", a.maxBucketShare()*100, bucketText(h)),
			Why: "BO-08: jitter spreads retries that failed together over the declared first wait's range; lockstep puts them in one bucket"},
		{Name: "RB-01p Retry-After slack", Value: h.Slack().String(),
			Why: "RB-01p: no call earlier than a Retry-After minus the time bound slack (HS-08's own slack is the Retry-After suite's)"},
		{Name: "backoff sampling refill", Value: fmt.Sprintf("%d successes after each round", h.Policy.Retry.Refill(4)),
			Why: "RB-15, BO-01..04, BO-08: ⌈a round's 4 failures / budget ratio⌉, so a retry throttle never starves the sample"},
	}
}

// Suite is the retry-amplification suite with cfg as its settings; the zero Config means the
// documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Config: cfg,
		Blame: []check.BlameRule{check.BlameResends, check.BlameCalls}}
}

// config is the settings of h's suite (the zero Config, the documented
// defaults, when h's suites do not hold it).
func config(h *check.Harness) Config {
	return check.SuiteConfig[Config](h, Name)
}
