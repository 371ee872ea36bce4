package retryafter

import (
	"cmp"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

const (
	Name     = "retry-after"
	raSource = "RFC 9110 §10.2.3"
)

// Config tunes the retry-after suite. Zero values mean the
// documented defaults, each taken from the source named on its field.
type Config struct {
	// Tolerance is the slack on every "no earlier than" bound; default the
	// harness tolerance (50 ms). Retry-After has 1-second
	// resolution, so bounds are whole seconds minus this slack.
	Tolerance time.Duration
	// Budget is the deadline sent (in the convention's deadline header) with
	// the requests whose dependency answers carry a Retry-After of 1 s; it must
	// leave room for that wait. Default 3 s: a target that clips budgets to
	// a maximum of its own (2 s or more) still leaves room.
	Budget time.Duration
	// AnswerSlack is how long after its budget a request may still be
	// answered when the dependency asks for a huge wait (HS-10). Default
	// 500 ms: the defect caught waits the huge value itself (10⁶ s), so any
	// slack far below the budget tells the two apart on a busy machine.
	AnswerSlack time.Duration
	// HugeValue is the Retry-After the dependency sends in HS-10; default
	// "1000000", the example of ratelimit-headers-10 §8.5.1.
	HugeValue string
	// InvalidValues are the malformed Retry-After values HS-09 draws two
	// from; default values RFC 9110 §10.2.3's grammar rejects (a sign, decimals,
	// units, a list, words) plus the
	// bad-retry-after defect's "1.5s" and a truncated date.
	InvalidValues []string
	// StormLimit is the most dependency calls one request may cause while
	// the dependency keeps answering with an invalid Retry-After; more is a
	// retry storm. Default n² + 1 for n declared attempts (3 when not
	// declared): two layers each making their attempts multiply them (SRE
	// book ch. 22), a tight loop makes hundreds. The gap allowed between
	// attempts is the declared backoff's (Harness.Policy), never a default.
	StormLimit int
	// BreakerFlush is how many consecutive successes are sent before each
	// dependency-fault case, so the target's breaker has closed and its retry
	// throttle refilled after earlier cases. Default the heal streak derived
	// from the declared budget ratio (RetryPolicy.healStreak: 71 for 3 attempts at 0.1);
	// unset, HS-08p sends it before its first case and every eighth, and
	// between the others what the last one's failed calls cost a throttle
	// (RetryPolicy.Refill), at least 10.
	BreakerFlush int
	// FlushWithin bounds the wait for those successes (an open breaker
	// half-opens after its delay). Default 5 s, or the declared breaker
	// recovery plus 2 s when longer.
	FlushWithin time.Duration
	// ExhaustLimit bounds the requests sent to drive one fresh tenant into
	// 429. Default 400, raised to the advertised remaining quota plus two
	// waves when the target advertises more (RateLimit r, X-RateLimit-Remaining).
	ExhaustLimit int
	// MaxWait is the longest Retry-After the server-side checks wait out to
	// see a request admitted; a longer one is reported as not verified.
	// Default 5 s.
	MaxWait time.Duration
}

func (c Config) tolerance(h *check.Harness) time.Duration {
	if c.Tolerance > 0 {
		return c.Tolerance
	}
	return h.Slack()
}

func (c Config) budget() time.Duration { return check.OrDuration(c.Budget, 3*time.Second) }
func (c Config) answerSlack() time.Duration {
	return check.OrDuration(c.AnswerSlack, 500*time.Millisecond)
}
func (c Config) hugeValue() string { return cmp.Or(c.HugeValue, "1000000") }
func (c Config) stormLimit(h *check.Harness) int {
	n := h.Policy.Retry.Attempts()
	return cmp.Or(c.StormLimit, n*n+1)
}
func (c Config) breakerFlush(h *check.Harness) int {
	return cmp.Or(c.BreakerFlush, h.Policy.Retry.HealStreak())
}
func (c Config) flushWithin(h *check.Harness) time.Duration {
	return check.OrDuration(c.FlushWithin, max(5*time.Second, h.Policy.Retry.BreakerRecovery+2*time.Second))
}
func (c Config) exhaustLimit() int      { return cmp.Or(c.ExhaustLimit, 400) }
func (c Config) maxWait() time.Duration { return check.OrDuration(c.MaxWait, 5*time.Second) }

func (c Config) invalidValues() []string {
	if len(c.InvalidValues) > 0 {
		return c.InvalidValues
	}
	return []string{"1.5s", "-1", "1.5", "5s", "120, 60", "soon", "Sun, 06 Nov 1994"}
}

// answerBlame lays a Retry-After missing or wrong on an answer at the
// door of the tier that answered, or of the tier that dropped it.
var answerBlame = []check.BlameRule{check.BlameAnswer}

// limiterBlame lays a refusal's Retry-After at the door of the tier whose
// limiter refused.
var limiterBlame = []check.BlameRule{check.BlameLimiter, check.BlameAnswer}

// RetryAfter returns the Retry-After suite. Server-side checks drive the
// target into 429 and 503 and hold its Retry-After to its word; client-side
// checks answer the target's dependency calls with 429/503 and a
// Retry-After and time the target's next call in the dependency journal.
// Checks that fail the dependency first send BreakerFlush successes (HS-08p
// between its cases what the last one cost, see Config.BreakerFlush), so the
// target's circuit breaker never sees more than one case's failures.
func checks() []check.Check {
	return []check.Check{
		{ID: "HS-01a", Suite: Name, Blame: limiterBlame, Takes: time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedRateLimitedRoute, check.NeedHTTPAnswers}, Source: raSource + "; RFC 6585 §4",
			Title: "a 429 carries a valid Retry-After that tells the truth: refused before it elapses, admitted after", Run: raTruthful429},
		{ID: "RL-09", Suite: Name, Blame: limiterBlame, Timed: true, Level: reports.LevelShouldNot, Needs: []check.Need{check.NeedRateLimitedRoute}, Source: "draft-ietf-httpapi-ratelimit-headers-10 §6",
			Title: "a 429's Retry-After does not point earlier than the RateLimit reset", Run: raNotBeforeReset},
		{ID: "HS-01b", Suite: Name, Blame: answerBlame, Takes: time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency, check.NeedHTTPAnswers}, Source: raSource + "; RFC 9110 §15.6.4",
			Title: "a 503 for a failing dependency carries a valid Retry-After; a retry after it is served", Run: raTruthful503},
		{ID: "HS-08", Suite: Name, Takes: time.Second, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency, check.NeedRetries}, Source: raSource + "; gRFC A6 (Pushback)",
			Title: "after a dependency's 503 with Retry-After: 1 (a gRPC one's UNAVAILABLE with a 1000 ms pushback), the next call comes no earlier", Run: raHonoursSeconds},
		{ID: "HS-08p", Suite: Name, Takes: raExplore, Explores: true, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: raSource + " (a property over values, statuses and budgets); draft-ietf-httpapi-ratelimit-headers-10 §7; RFC 9110 §15.6.4",
			Title: "under random Retry-After values of 2–4 s on 429 and 503, with and without RateLimit fields (a gRPC dependency's: pushbacks on RESOURCE_EXHAUSTED and UNAVAILABLE), and budgets that do or do not leave room: no dependency call before the wait, an answer by the budget", Run: retryAfterProperty},
		{ID: "RL-10", Suite: Name, Takes: time.Second, Timed: true, Level: reports.LevelMust, Needs: []check.Need{check.NeedDependency, check.NeedHTTPDependency, check.NeedRetries}, Source: "draft-ietf-httpapi-ratelimit-headers-10 §7",
			Title: "after a dependency's 429 with Retry-After and an earlier RateLimit reset, Retry-After wins", Run: raPrecedence},
		{ID: "HS-03", Suite: Name, Takes: 3500 * time.Millisecond, Timed: true, Level: reports.LevelMust, Needs: []check.Need{check.NeedDependency, check.NeedHTTPDependency, check.NeedRetries}, Source: "RFC 9110 §5.6.7, §10.2.3",
			Title: "a Retry-After HTTP-date in each of the three formats is honoured", Run: raHonoursDates},
		{ID: "HS-09", Suite: Name, Timed: true, Level: reports.LevelConvention, Needs: []check.Need{check.NeedDependency, check.NeedHTTPDependency}, Source: "Envoy router filter docs (an unparseable reset header falls back to the exponential back-off); AWS SDKs and Tools Reference Guide \"Retry behavior\"",
			Title: "an invalid Retry-After falls back to the normal backoff: neither a storm nor no retry", Run: raInvalidFallsBack},
		{ID: "HS-09g", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{check.NeedDependency, check.NeedGRPCDependency}, Source: "gRFC A6 \"gRPC Retry Design\" (Pushback: a negative or unparseable grpc-retry-pushback-ms means no retry)",
			Title: "a gRPC dependency's negative pushback stops the retries: one attempt", Run: raNegativePushback},
		{ID: "HS-10", Suite: Name, Timed: true, Level: reports.LevelRecommended, Needs: []check.Need{check.NeedDependency}, Source: "draft-ietf-httpapi-ratelimit-headers-10 §8.5.1; Envoy RetryPolicy rate_limited_retry_back_off (max_interval); gRFC A6 (Pushback)",
			Title: "a huge Retry-After (a gRPC dependency's pushback) does not hold the caller past its deadline", Run: raHugeIsCapped},
		{ID: "HS-02", Suite: Name, Blame: limiterBlame, RunWide: true, Timed: true, Level: reports.LevelMust, Needs: []check.Need{check.NeedHTTPAnswers}, Source: raSource + ", §5.6.7",
			Title: "every 429 and 503 of the run carries Retry-After as delay-seconds or IMF-fixdate", Run: raRunWideSyntax},
	}
}

// tolerances are the Retry-After suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	out := []reports.Tolerance{{Name: "Retry-After slack", Value: config(h).tolerance(h).String(),
		Why: "HS-08: no call earlier than Retry-After minus this"}}
	if n := config(h).BreakerFlush; n > 0 {
		out = append(out, reports.Tolerance{Name: "heal streak, Retry-After cases", Value: fmt.Sprintf("%d (retryafter.Config.BreakerFlush)", n),
			Why: "before HS-08..HS-10's dependency-fault cases, in place of the heal streak"})
	}
	return out
}

// slack is the least time slack the Retry-After checks judge with.
func slack(h *check.Harness) time.Duration { return config(h).tolerance(h) }

// Suite is the Retry-After suite with cfg as its settings; the zero Config means the
// documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Slack: slack, Config: cfg,
		Blame: []check.BlameRule{check.BlameResends, check.BlameCalls}}
}

// config is the settings of h's suite (the zero Config, the documented
// defaults, when h's suites do not hold it).
func config(h *check.Harness) Config {
	return check.SuiteConfig[Config](h, Name)
}
