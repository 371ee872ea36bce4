package targets

import "time"

// BrokerNATS is the broker resilcheck starts for a queue consumer: an
// embedded NATS JetStream server on loopback.
const BrokerNATS = "nats"

// QueueConsumer says the service consumes messages from a broker that
// resilcheck starts and publishes to (the spec's queue_consumer section).
// The service is handed the broker's URL as {{.Broker}} (kind process).
// The zero value declares no consumer.
type QueueConsumer struct {
	// Broker names the broker: "nats" (NATS JetStream, embedded) is the one
	// supported; empty = nats.
	Broker string `yaml:"broker"`
	// Subject is where resilcheck publishes the messages the service
	// consumes; required. Empty = the service consumes no queue.
	Subject string `yaml:"subject"`
	// Stream is the JetStream stream resilcheck creates over Subject;
	// empty = RESILCHECK.
	Stream string `yaml:"stream"`
	// Consumer is the durable pull consumer resilcheck creates, with
	// explicit acks, AckWait and MaxDeliver, for the service to bind to;
	// empty = resilcheck.
	Consumer string `yaml:"consumer"`
	// AckWait is how long the broker waits for an ack before it delivers a
	// message again; 0 = 1s. It bounds how soon a crashed consumer's
	// message comes back.
	AckWait time.Duration `yaml:"ack_wait"`
	// MaxDeliver is how many deliveries of a message the service tries
	// before it gives up on it and dead-letters it; 0 = not declared
	// (the broker redelivers without end, and the poison check needs it).
	MaxDeliver int `yaml:"max_deliver"`
	// DeadLetter is the subject the service publishes a message it gives
	// up on to (a copy with its Nats-Msg-Id, or a body that contains it);
	// empty = not declared, and the poison check does not apply.
	DeadLetter string `yaml:"dead_letter"`
	// Body is the message published, a template over RequestValues (.Key
	// is the message's Nats-Msg-Id); empty = {"id":"{{.Key}}","amount":{{.Amount}}}.
	Body string `yaml:"body"`
	// Poison is a message the service cannot process, a template like
	// Body; empty = {"id":"{{.Key}}","amount": (truncated JSON).
	Poison string `yaml:"poison"`
}

// Declared reports whether the spec declares a queue consumer.
func (q QueueConsumer) Declared() bool { return q.Subject != "" }

// The defaults of the queue_consumer section's templates.
const (
	DefaultQueueBody   = `{"id":"{{.Key}}","amount":{{.Amount}}}`
	DefaultQueuePoison = `{"id":"{{.Key}}","amount":`
)

func (t *Target) defaultQueueConsumer() {
	q := &t.QueueConsumer
	if !q.Declared() {
		return
	}
	if q.Broker == "" {
		q.Broker = BrokerNATS
	}
	if q.Stream == "" {
		q.Stream = "RESILCHECK"
	}
	if q.Consumer == "" {
		q.Consumer = "resilcheck"
	}
	if q.AckWait == 0 {
		q.AckWait = time.Second
	}
	if q.Body == "" {
		q.Body = DefaultQueueBody
	}
	if q.Poison == "" {
		q.Poison = DefaultQueuePoison
	}
}
