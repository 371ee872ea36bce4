package check

import (
	"context"

	"github.com/resilcheck/resilcheck/broker"
)

// EventBroker is the broker a target publishes the events of its effects
// to, as the outbox suite drives it (the embedded NATS server is one).
type EventBroker interface {
	// Events returns the journal so far, in the order it arrived: every
	// publish to the events subject is a broker.Emitted event, stored or
	// not.
	Events() []broker.Event
	// Stored returns the events the broker stored (and confirmed), each
	// with its Nats-Msg-Id.
	Stored(ctx context.Context) ([]broker.Event, error)
	// Down stops the broker, as an outage would; Up starts it again at the
	// same address with what it stored.
	Down()
	Up(ctx context.Context) error
	// Withhold makes the broker take no event publish (none is stored or
	// confirmed, though each is journaled); Restore undoes it.
	Withhold(ctx context.Context) error
	Restore(ctx context.Context) error
}

// OutboxPolicy is how the target publishes an event for each of its
// effects (the spec's outbox section). The zero value declares none.
type OutboxPolicy struct {
	// Broker is where the target publishes; nil = it publishes no events.
	Broker EventBroker
	// Trigger is the operation whose success is one effect owing one
	// event; nil means the harness's Operation.
	Trigger *Operation
	// Crash kills the target at once and starts it again, returning once
	// it is healthy (launch.Running.CrashFunc); nil = it cannot be
	// crashed here.
	Crash func(ctx context.Context) error
}

// Declared reports whether the target declares an outbox.
func (p OutboxPolicy) Declared() bool { return p.Broker != nil }
