package webhooksender

import (
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Name is the suite's name in reports.
const Name = "webhook-sender"

const (
	swSpec    = "Standard Webhooks 1.0.0 (github.com/standard-webhooks/standard-webhooks/spec/standard-webhooks.md)"
	swRetries = swSpec + " §Deliverability and reliability"
	swStatus  = swSpec + " §Delivery success and failure"
)

// Config tunes the webhook sender suite. Zero values mean the documented
// defaults, each with the reason on its field.
type Config struct {
	// Grace is how long past twice the declared wait the suite waits for
	// a retry that should come, or one that must not; 0 means 1 s, which
	// covers a jitter that doubles the declared least wait and a loaded
	// runner's scheduling.
	Grace time.Duration
	// RetryAfter is the Retry-After WS-06 and WS-06b send; 0 means twice
	// the declared first wait rounded up to whole seconds, at least 1 s,
	// so a sender that ignores it retries visibly early.
	RetryAfter time.Duration
	// Events is how many events WS-08 has emitted together, and WS-10
	// during its outage; 0 means 16,
	// enough that lockstep (all in one bucket) and a jitter spread over
	// five buckets differ beyond chance: such jitter puts more than 75 %
	// of 16 in one bucket about 5 times in 10⁶ runs (simulated), where 8
	// would do it about 2 times in 10³.
	Events int
	// Bucket is WS-08's bucket: how close first waits must be to count
	// as the same instant; 0 means a fifth of the declared first wait (a
	// jitter that spreads retries over the wait fills five), at least
	// 10 ms. Lockstep a loaded runner spread over 22 ms passed in 10 ms
	// buckets of a 100 ms wait (6 of 8 in the busiest).
	Bucket time.Duration
}

func (c Config) events() int {
	if c.Events > 1 {
		return c.Events
	}
	return 16
}

// bucket is WS-08's bucket for a sender whose first retry waits at least
// first (0: undeclared).
func (c Config) bucket(first time.Duration) time.Duration {
	return check.OrDuration(c.Bucket, max(first/5, 10*time.Millisecond))
}

func (c Config) grace() time.Duration { return check.OrDuration(c.Grace, time.Second) }

// retryAfter is the Retry-After to send a sender whose first wait is first.
func (c Config) retryAfter(first time.Duration) time.Duration {
	if c.RetryAfter > 0 {
		return c.RetryAfter.Round(time.Second)
	}
	return max(time.Second, (2*first + time.Second - 1).Truncate(time.Second))
}

// window is how long after attempt n the suite waits for attempt n+1.
func (s *scase) window(n int) time.Duration { return 2*s.p.Wait(n) + s.cfg.grace() }

// config is the settings of h's suite.
func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }

func checks() []check.Check {
	sender := []check.Need{needSender}
	retrying := []check.Need{needSender, needRetries}
	return []check.Check{
		{ID: "WS-01", Suite: Name, Level: reports.LevelMust, Needs: retrying, Timed: true,
			Source: swSpec + " §Webhook metadata (webhook-id is the same when the same webhook is being resent)",
			Title:  "every attempt of one event carries the same webhook-id", Run: withSender(sameID)},
		{ID: "WS-02", Suite: Name, Level: reports.LevelMust, Needs: retrying, Timed: true,
			Source: swSpec + " §Signature scheme, §Webhook metadata (the timestamp, and so the signature, is fresh per attempt)",
			Title:  "every attempt of one event carries a valid Standard Webhooks signature", Run: withSender(signed)},
		{ID: "WS-03", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: swRetries + " (retry until an attempt succeeds), §Delivery success and failure (a non-2xx answer is a failure)",
			Title:  "a delivery answered 500 is retried", Run: withSender(retriedAfter500)},
		{ID: "WS-03b", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: swRetries + " (retry until an attempt succeeds), §Delivery success and failure (a connection reset is a failure)",
			Title:  "a delivery whose connection is reset is retried", Run: withSender(retriedAfterReset)},
		{ID: "WS-03c", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{needSender, needRetries, needTimeout}, Timed: true,
			Source: swRetries + " (retry until an attempt succeeds), §Delivery success and failure (a request timeout is a failure), §Request timeouts",
			Title:  "a delivery the endpoint never answers is abandoned after the declared attempt timeout and retried", Run: withSender(retriedAfterTimeout)},
		{ID: "WS-04", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{needSender, needRetries, needBackoff}, Timed: true,
			Source: swRetries + " (a retry schedule with exponential backoff)",
			Title:  "each retry waits at least the declared backoff", Run: withSender(backoff)},
		{ID: "WS-05", Suite: Name, Level: reports.LevelShould, Needs: sender, Timed: true,
			Source: swRetries + " (until delivery may not be possible, then disable); docs.stripe.com/webhooks/process-undelivered-events (resends for up to three days)",
			Title:  "an event whose every delivery fails is attempted at most the declared max attempts", Run: withSender(bounded)},
		{ID: "WS-06", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: "RFC 9110 §10.2.3; RFC 6585 §4; " + swStatus + " (429: throttle; Retry-After taken into consideration)",
			Title:  "a delivery answered 429 with Retry-After is not retried before it", Run: withSender(retryAfter429)},
		{ID: "WS-06b", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: "RFC 9110 §10.2.3, §15.6.4; " + swStatus + " (Retry-After on a 503)",
			Title:  "a delivery answered 503 with Retry-After is not retried before it", Run: withSender(retryAfter503)},
		{ID: "WS-07", Suite: Name, Level: reports.LevelShould, Needs: sender, Timed: true,
			Source: "RFC 9110 §15.5.11; " + swStatus + " (410 Gone: disable the endpoint, stop sending)",
			Title:  "a delivery answered 410 Gone is not attempted again", Run: withSender(gone)},
		{ID: "WS-08", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: swRetries + " (random jitter, so retries do not recur as load)",
			Title:  "events failing together are not retried in lockstep", Run: withSender(spread)},
		{ID: "WS-09", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: swStatus + " (only 2xx is success; redirects are not followed)",
			Title:  "a delivery answered with a redirect is not followed, and is retried at the endpoint's own URL", Run: withSender(redirected)},
		{ID: "WS-10", Suite: Name, Level: reports.LevelShould, Needs: retrying, Timed: true,
			Source: swRetries + " (random jitter, so retries do not recur as load caused by the attempts themselves)",
			Title:  "events that failed during an outage are not all delivered at once when the endpoint recovers", Run: withSender(recovering)},
	}
}

// tolerances are the suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	cfg := config(h)
	ra := "2× the declared first wait rounded up to seconds, at least 1s"
	bucket := "a fifth of the declared first wait, at least 10ms"
	if p := h.Policy.WebhookSender; p.Declared() {
		ra = cfg.retryAfter(p.Wait(1)).String()
		bucket = cfg.bucket(p.Wait(1)).String()
	}
	return []reports.Tolerance{
		{Name: "WS grace", Value: cfg.grace().String(),
			Why: "WS-01..WS-10: how long past twice the declared wait the endpoint waits for a retry that should come, or one that must not"},
		{Name: "WS-08 lockstep", Value: fmt.Sprintf("> %.0f %% of %d events' first waits in one %s bucket", 100*lockstepShare, cfg.events(), bucket),
			Why: "WS-08: jitter spreads the retries of events that failed together; lockstep puts them in one bucket"},
		{Name: "WS-10 burst", Value: fmt.Sprintf("> %.0f %% of %d events' first deliveries after the recovery in one %s bucket", 100*lockstepShare, cfg.events(), bucket),
			Why: "WS-10: events emitted the first wait over their count apart during an outage keep their own retry times; a backlog released at the recovery falls in one bucket"},
		{Name: "WS-06 Retry-After", Value: ra,
			Why: "WS-06, WS-06b: the Retry-After the endpoint answers with, longer than the declared first wait"},
	}
}

// Suite is the webhook sender suite with cfg as its settings; the zero
// Config means the documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Config: cfg}
}
