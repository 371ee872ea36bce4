package webhooks

import (
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Name is the suite's name in reports.
const Name = "webhooks"

const (
	swSpec = "Standard Webhooks 1.0.0 (github.com/standard-webhooks/standard-webhooks/spec/standard-webhooks.md)"
	swGo   = "github.com/standard-webhooks/standard-webhooks/libraries/go/webhook.go"
)

// Config tunes the webhooks suite. Zero values mean the documented
// defaults, each with the reason on its field.
type Config struct {
	// Stale is how far in the past (WH-06) or the future (WH-06b) a
	// refused delivery's timestamp is; 0 means 10 min, twice the 5 min
	// tolerance of the Standard Webhooks libraries, so a receiver keeping
	// any tolerance up to that refuses it.
	Stale time.Duration
	// Copies is how many copies of one event WH-02 delivers at once; 0
	// or 1 means 8 (a single copy races nothing).
	Copies int
	// Landing is how long a check that expects an effect waits for one to
	// show after the receiver answered; 0 means 2s, room for a receiver
	// that answers first and records from a queue of its own.
	Landing time.Duration
}

func (c Config) landing() time.Duration { return check.OrDuration(c.Landing, 2*time.Second) }

func (c Config) stale() time.Duration { return check.OrDuration(c.Stale, 10*time.Minute) }

func (c Config) copies() int {
	if c.Copies > 1 {
		return c.Copies
	}
	return 8
}

// config is the settings of h's suite.
func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }

func checks() []check.Check {
	needs := []check.Need{needReceiver}
	return []check.Check{
		{ID: "WH-01", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: swSpec + " §Webhook metadata (the id lets a consumer process an event once)",
			Title: "the same event delivered again (same webhook-id, fresh signature) is answered 2xx and makes no second effect", Run: withEvent(redelivered)},
		{ID: "WH-02", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: swSpec + " §Webhook metadata (the id lets a consumer process an event once)",
			Title: "concurrent copies of one event make one effect", Run: withEvent(concurrent)},
		{ID: "WH-03", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: swSpec + " §Webhook metadata (failed deliveries are retried with the same id)",
			Title: "an event delivered again after the receiver's answer was lost makes one effect", Run: withEvent(lostAnswer)},
		{ID: "WH-04", Suite: Name, Level: reports.LevelMust, Needs: needs, Source: swSpec + " §Verifying webhook authenticity, §Signature scheme",
			Title: "a delivery with a bad signature is refused with a 4xx and makes no effect", Run: withEvent(badSignature)},
		{ID: "WH-05", Suite: Name, Level: reports.LevelMust, Needs: needs, Source: swSpec + " §Verifying webhook authenticity, §Webhook headers",
			Title: "a delivery without a signature is refused with a 4xx and makes no effect", Run: withEvent(missingSignature)},
		{ID: "WH-06", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: swSpec + " §Webhook metadata (the attempt's timestamp prevents replay attacks); " + swGo + " (a 5 min tolerance)",
			Title: "a correctly signed delivery whose timestamp is outside the tolerance is refused with a 4xx and makes no effect", Run: withEvent(staleTimestamp)},
		{ID: "WH-06b", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: swSpec + " §Webhook metadata (the attempt's timestamp prevents replay attacks); " + swGo + " (a 5 min tolerance, past and future)",
			Title: "a correctly signed delivery whose timestamp is further ahead than the tolerance is refused with a 4xx and makes no effect", Run: withEvent(futureTimestamp)},
		{ID: "WH-07", Suite: Name, Level: reports.LevelMust, Needs: needs, Source: swSpec + " §Signature scheme",
			Title: "a valid, freshly signed event is answered 2xx and makes exactly one effect", Run: withEvent(accepted)},
		{ID: "WH-08", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{needReceiver, needCrash}, Source: swSpec + " §Delivery success and failure (a 2xx is success: the event is not delivered again)",
			Title: "an event answered 2xx keeps its effect when the receiver crashes right after the answer", Run: withEvent(durable)},
		{ID: "WH-09", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{needReceiver, needOrdering}, Source: stripeOrdering,
			Title: "an earlier event delivered after a later one about the same object does not roll the object's state back", Run: reordered},
	}
}

// tolerances are the suite's thresholds.
func tolerances(h *check.Harness) []reports.Tolerance {
	cfg := config(h)
	return []reports.Tolerance{
		{Name: "WH-06 stale timestamp", Value: cfg.stale().String(),
			Why: "WH-06, WH-06b: how far the refused delivery's timestamp is in the past or the future: twice the Standard Webhooks libraries' 5 min tolerance"},
		{Name: "WH-02 concurrent copies", Value: fmt.Sprint(cfg.copies()),
			Why: "WH-02: copies of one event delivered at once"},
		{Name: "WH effect landing", Value: cfg.landing().String(),
			Why: "WH-01 to WH-03, WH-07 to WH-09: how long a count of no effects is taken again, or a state watched, for a receiver that records after it answers"},
	}
}

// Suite is the webhook receiver suite with cfg as its settings; the zero
// Config means the documented defaults.
func Suite(cfg Config) check.Suite {
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Config: cfg,
		Blame: []check.BlameRule{check.BlameResends, check.BlameAnswer}, OwnTraffic: true}
}
