package targets

import "slices"

// checkOutbox checks the outbox section: a literal subject apart from the
// queue's, a known trigger, on a kind that can hand the service the
// broker's URL and crash it.
func (v *validator) checkOutbox() {
	o := v.t.Outbox
	const at = "outbox."
	if !o.Declared() {
		if !isZero(o) || v.written("outbox") {
			v.keyErrf(at+"subject", "required: the subject the service publishes the event of each effect to, e.g. subject: payments.events; leave outbox out if it publishes none")
		}
		return
	}
	if v.kind != KindProcess && v.kind != KindReference {
		v.keyErrf("outbox", "an outbox is certified as kind process or reference: resilcheck starts the broker, hands the service its URL as {{.Broker}}, and restarts the service to crash it; got kind %s", v.kind)
	}
	q := v.t.QueueConsumer
	switch {
	case !natsSubject.MatchString(o.Subject):
		v.errf(at+"subject", "expected a literal NATS subject (tokens of letters, digits, - and _ joined by dots, no wildcards), got %q", o.Subject)
	case q.Declared() && (o.Subject == q.Subject || o.Subject == q.DeadLetter):
		v.errf(at+"subject", "the events subject must differ from the queue's subject and dead-letter subject (%s, %s)", q.Subject, q.DeadLetter)
	}
	if o.Trigger != "" && !slices.ContainsFunc(v.t.Operations, func(op Operation) bool { return op.Name == o.Trigger }) {
		var names []string
		for _, op := range v.t.Operations {
			names = append(names, op.Name)
		}
		v.errf(at+"trigger", "no operation is named %q; declared: %s", o.Trigger, orNone(names))
	}
}
