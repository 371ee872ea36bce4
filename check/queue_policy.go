package check

import (
	"context"
	"time"

	"github.com/resilcheck/resilcheck/broker"
)

// Broker is the broker a queue-consumer target reads from, as the queue
// suite drives it: it publishes under a message id and journals what
// crossed it (*broker.NATS is one).
type Broker interface {
	// Publish stores body under id (its Nats-Msg-Id) on the consumed
	// subject and returns its stream sequence.
	Publish(ctx context.Context, id string, body []byte) (uint64, error)
	// Events returns the journal so far, in the order it arrived.
	Events() []broker.Event
	// Outstanding returns how many messages the target has yet to settle
	// (delivered and not acked, or not delivered yet).
	Outstanding(ctx context.Context) (int, error)
}

// QueuePolicy is how the target consumes a queue (the spec's
// queue_consumer section). The zero value declares no consumer.
type QueuePolicy struct {
	// Broker is the broker the target consumes from; nil = the target
	// consumes no queue.
	Broker Broker
	// AckWait is how long the broker waits for an ack before it delivers
	// a message again; 0 means 1s, the broker's default here.
	AckWait time.Duration
	// MaxDeliver is how many deliveries of a message the target tries
	// before it dead-letters it; 0 = not declared.
	MaxDeliver int
	// DeadLetter is the subject the target dead-letters a message to; ""
	// = not declared.
	DeadLetter string
	// Body and Poison render a message the target processes and one it
	// cannot, for v (v.Key is the message id); nil means the spec's
	// defaults (targets.DefaultQueueBody, DefaultQueuePoison).
	Body, Poison func(v Values) ([]byte, error)
	// Crash kills the target at once, as a crash would (no grace, nothing
	// flushed), starts it again and returns once it is healthy; nil = the
	// target cannot be crashed here.
	Crash func(ctx context.Context) error
}

// Declared reports whether the target declares a queue consumer.
func (p QueuePolicy) Declared() bool { return p.Broker != nil }
