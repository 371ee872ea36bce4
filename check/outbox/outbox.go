package outbox

import (
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Name is the suite's name in reports.
const Name = "outbox"

const (
	richardson = "Richardson, Microservices Patterns (2018) §3.3.7 and microservices.io \"Transactional outbox\" (messages are sent if and only if the database transaction commits)"
	relay      = "microservices.io \"Transactional outbox\" (the relay might publish a message more than once: consumers dedupe by its id); Debezium outbox event router docs (the outbox id becomes the message id)"
)

// Config tunes the outbox suite. Zero values mean the documented defaults.
type Config struct {
	// Settle bounds every wait for the service's events; 0 means 10s,
	// room for a relay's polling and a client's reconnect after an outage.
	Settle time.Duration
	// Outage is how long the broker stays down in OB-02 after the service
	// was crashed; 0 means 1s.
	Outage time.Duration
}

func (c Config) settle() time.Duration { return check.OrDuration(c.Settle, 10*time.Second) }
func (c Config) outage() time.Duration { return check.OrDuration(c.Outage, time.Second) }

func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }

func checks() []check.Check {
	needs := []check.Need{needOutbox}
	return []check.Check{
		{ID: "OB-01", Suite: Name, Level: reports.LevelMust, Needs: needs, Source: richardson,
			Title: "an effect is published as one event, under one id, and the broker stores it", Run: withCase(once)},
		{ID: "OB-02", Suite: Name, Level: reports.LevelMust, Needs: []check.Need{needOutbox, needCrash}, Source: richardson,
			Title: "an effect made while the broker was down, the service crashed before it came back, is still published once the broker is back", Run: withCase(outage)},
		{ID: "OB-03", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: relay,
			Title: "an event the broker did not confirm is published again under the same id until it is stored", Run: withCase(unconfirmed)},
	}
}

func tolerances(h *check.Harness) []reports.Tolerance {
	cfg := config(h)
	return []reports.Tolerance{
		{Name: "OB settle", Value: cfg.settle().String(),
			Why: "OB-01 to OB-03: how long the service's events are waited for: a relay's polling, a client's reconnect after an outage"},
		{Name: "OB-02 outage", Value: cfg.outage().String(),
			Why: "OB-02: how long the broker stays down after the service was crashed"},
	}
}

// Suite is the outbox suite with cfg as its settings.
func Suite(cfg Config) check.Suite {
	// The broker's journal, not the tiers' exchanges, shows a failure.
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Config: cfg, Blame: []check.BlameRule{}}
}
