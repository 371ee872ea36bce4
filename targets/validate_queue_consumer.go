package targets

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// natsName is what NATS accepts as a stream or durable consumer name.
var natsName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// natsSubject is a literal subject: dot-separated tokens, no wildcards.
var natsSubject = regexp.MustCompile(`^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$`)

// checkQueueConsumer checks the queue_consumer section: a known broker,
// literal subjects, NATS names and positive bounds, on a kind that can
// hand the service the broker's URL.
func (v *validator) checkQueueConsumer() {
	q := v.t.QueueConsumer
	const at = "queue_consumer."
	if !q.Declared() {
		if !isZero(q) || v.written("queue_consumer") {
			v.keyErrf(at+"subject", "required: the subject resilcheck publishes the service's messages to, e.g. subject: orders.created; leave queue_consumer out if the service consumes no queue")
		}
		return
	}
	if v.kind != KindProcess && v.kind != KindReference {
		v.keyErrf("queue_consumer", "a queue consumer is certified as kind process or reference: resilcheck starts the broker, hands the service its URL as {{.Broker}}, and restarts the service to crash it; got kind %s", v.kind)
	}
	if q.Broker != "" && q.Broker != BrokerNATS {
		v.errf(at+"broker", "unknown broker %q; expected %s (NATS JetStream, embedded)", q.Broker, BrokerNATS)
	}
	if !natsSubject.MatchString(q.Subject) {
		v.errf(at+"subject", "expected a literal NATS subject (tokens of letters, digits, - and _ joined by dots, no wildcards), got %q", q.Subject)
	}
	if q.DeadLetter != "" {
		if !natsSubject.MatchString(q.DeadLetter) {
			v.errf(at+"dead_letter", "expected a literal NATS subject, got %q", q.DeadLetter)
		} else if q.DeadLetter == q.Subject {
			v.errf(at+"dead_letter", "the dead-letter subject must differ from subject %q: a dead-lettered copy would be consumed again", q.Subject)
		}
	}
	if q.Stream != "" && !natsName.MatchString(q.Stream) {
		v.errf(at+"stream", "expected a stream name of letters, digits, - and _ (at most 64), got %q", q.Stream)
	}
	if q.Consumer != "" && !natsName.MatchString(q.Consumer) {
		v.errf(at+"consumer", "expected a consumer name of letters, digits, - and _ (at most 64), got %q", q.Consumer)
	}
	v.positive(at+"ack_wait", q.AckWait, q.AckWait < 0)
	if q.AckWait > 0 && q.AckWait < minAckWait {
		v.errf(at+"ack_wait", "expected at least %s: a consumer's ack must be able to come back before the broker delivers the message again, got %s", minAckWait, q.AckWait)
	}
	if w := queueWait(q); w > maxQueueWait {
		v.errf(at+"ack_wait", "the queue checks would wait up to %s (ack_wait %s × (max_deliver %d + 2) + 10s), past their %s: certify with a shorter ack_wait, e.g. 1s", w, max(q.AckWait, time.Second), q.MaxDeliver, maxQueueWait)
	}
	if q.MaxDeliver < 0 {
		v.errf(at+"max_deliver", "expected the deliveries the service tries before it dead-letters a message (at least 1), got %d", q.MaxDeliver)
	}
	if q.DeadLetter != "" && q.MaxDeliver == 0 {
		v.keyErrf(at+"max_deliver", "required with dead_letter: how many deliveries the service tries before it dead-letters a message, e.g. max_deliver: 3")
	}
	for _, f := range []struct{ path, tmpl string }{{at + "body", q.Body}, {at + "poison", q.Poison}} {
		if f.tmpl != "" {
			v.template(f.path, f.tmpl, sampleRequest)
		}
	}
}

// minAckWait is the least ack_wait accepted.
const minAckWait = 100 * time.Millisecond

// maxQueueWait is the longest a queue check may wait for the consumer,
// within a check's 90 s timeout.
const maxQueueWait = 80 * time.Second

// queueWait is the longest a queue check waits on q's consumer: an
// ack_wait per delivery of a poison message, two more around a crash,
// and 10 s to restart and settle.
func queueWait(q QueueConsumer) time.Duration {
	ack := q.AckWait
	if ack <= 0 {
		ack = time.Second
	}
	return ack*time.Duration(max(q.MaxDeliver, 1)+2) + 10*time.Second
}

// brokerUses returns the paths of process.command and process.env that
// write {{.Broker}}.
func (v *validator) brokerUses() []string {
	var paths []string
	for i, a := range v.t.Process.Command {
		if strings.Contains(a, ".Broker") {
			paths = append(paths, fmt.Sprintf("process.command[%d]", i))
		}
	}
	for _, k := range sortedKeys(v.t.Process.Env) {
		if strings.Contains(v.t.Process.Env[k], ".Broker") {
			paths = append(paths, "process.env."+k)
		}
	}
	return paths
}

// checkBrokerUses checks that a spec using the broker hands the service
// its URL, and that one not using it does not write {{.Broker}}.
func (v *validator) checkBrokerUses() {
	uses := v.brokerUses()
	switch {
	case !v.t.UsesBroker():
		for _, path := range uses {
			v.errf(path, "{{.Broker}} is the URL of the broker resilcheck starts for a queue consumer or an outbox, and the spec declares neither (queue_consumer, outbox)")
		}
	case v.kind == KindProcess && len(uses) == 0:
		section := "queue_consumer"
		if !v.t.QueueConsumer.Declared() {
			section = "outbox"
		}
		v.keyErrf(section, "the service is never told where the broker is: write {{.Broker}} in process.env (e.g. NATS_URL: \"{{.Broker}}\") or process.command")
	}
}
