package queue

import (
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Name is the suite's name in reports.
const Name = "queue"

const (
	outbox     = "Richardson, Microservices Patterns (2018) §3.3.7 and microservices.io \"Transactional outbox\" (consumers must be idempotent: a message may arrive more than once)"
	jsAck      = "NATS JetStream consumer docs (docs.nats.io, \"Consumer Details\": AckExplicit, AckWait, MaxDeliver; an unacknowledged message is redelivered)"
	deadLetter = "NATS JetStream consumer docs (docs.nats.io, MaxDeliver and the MAX_DELIVERIES advisory); RabbitMQ docs \"Dead Letter Exchanges\" (rabbitmq.com/docs/dlx)"
)

// Config tunes the queue suite. Zero values mean the documented defaults.
type Config struct {
	// Settle bounds every wait for the consumer beyond what the spec's
	// ack_wait and max_deliver already explain; 0 means 10s, room for a
	// consumer process to restart and reconnect on a busy runner.
	Settle time.Duration
}

func (c Config) settle() time.Duration { return check.OrDuration(c.Settle, 10*time.Second) }

func config(h *check.Harness) Config { return check.SuiteConfig[Config](h, Name) }

func checks() []check.Check {
	needs := []check.Need{needConsumer}
	crash := []check.Need{needConsumer, needCrash}
	return []check.Check{
		{ID: "QC-01", Suite: Name, Level: reports.LevelMust, Needs: needs, Source: jsAck,
			Title: "a message published once is acknowledged and makes exactly one effect", Run: withMessage(once)},
		{ID: "QC-02", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: outbox,
			Title: "the same message id published again after the broker's duplicate window makes no second effect", Run: withMessage(again)},
		{ID: "QC-03", Suite: Name, Level: reports.LevelShould, Needs: crash, Source: outbox + "; " + jsAck,
			Title: "a consumer killed after its effect and before its ack gets the message again and makes no second effect", Run: withMessage(crashAfterEffect)},
		{ID: "QC-04", Suite: Name, Level: reports.LevelMust, Needs: crash, Source: jsAck,
			Title: "a consumer killed on its way to the effect gets the message again after it restarts: the effect is not lost", Run: withMessage(crashBeforeEffect)},
		{ID: "QC-05", Suite: Name, Level: reports.LevelShould, Needs: []check.Need{needConsumer, needDeadLetter}, Source: deadLetter,
			Title: "a message the consumer cannot process reaches the dead-letter subject after at most the declared deliveries, and is not delivered again", Run: withMessage(poison)},
		{ID: "QC-06", Suite: Name, Level: reports.LevelShould, Needs: needs, Source: invalidMessage, Timed: true,
			Title: "a message published right behind one the consumer cannot process is acknowledged within the ack_wait: the poison one does not block the queue", Run: withMessage(flowing)},
	}
}

func tolerances(h *check.Harness) []reports.Tolerance {
	p := h.Policy.Queue
	return []reports.Tolerance{
		{Name: "QC settle", Value: config(h).settle().String(),
			Why: "QC-01 to QC-06: how long beyond the declared ack_wait (and max_deliver deliveries) a wait for the consumer lasts: a restart and a reconnect on a busy runner"},
		{Name: "QC ack_wait", Value: p.AckWait.String(),
			Why: "QC-03 to QC-06: the spec's queue_consumer.ack_wait: when the broker delivers an unacknowledged message again, and QC-06's bound on a message waiting behind a poison one"},
		{Name: "QC-05 max_deliver", Value: fmt.Sprint(p.MaxDeliver),
			Why: "QC-05: the spec's queue_consumer.max_deliver: the deliveries a poison message may take before it is dead-lettered"},
	}
}

// Suite is the queue-consumer suite with cfg as its settings.
func Suite(cfg Config) check.Suite {
	// The broker's journal, not the tiers' exchanges, shows a failure.
	return check.Suite{Name: Name, Checks: checks(), Tolerances: tolerances, Config: cfg, Blame: []check.BlameRule{}, OwnTraffic: true}
}
