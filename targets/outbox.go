package targets

// Outbox says the service publishes an event for each of its effects to a
// broker resilcheck starts (the spec's outbox section): the
// transactional outbox, judged from outside. The service is handed the
// broker's URL as {{.Broker}} (kind process). The zero value declares no
// events.
type Outbox struct {
	// Subject is where the service publishes its events, one per effect,
	// each with a Nats-Msg-Id that stays the same when it is published
	// again; required. Empty = the service publishes none.
	Subject string `yaml:"subject"`
	// Trigger names the operation whose success is one effect and owes
	// one event; empty = the first operation.
	Trigger string `yaml:"trigger"`
}

// Declared reports whether the spec declares an outbox.
func (o Outbox) Declared() bool { return o.Subject != "" }

// UsesBroker reports whether the spec asks resilcheck to start a broker:
// for a queue the service consumes, or events it publishes.
func (t *Target) UsesBroker() bool { return t.QueueConsumer.Declared() || t.Outbox.Declared() }
