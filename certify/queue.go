package certify

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/internal/natsbroker"
	"github.com/resilcheck/resilcheck/targets"
)

// startBroker starts the broker the spec's queue_consumer and outbox
// sections ask for, before the target, which is handed its URL: the
// streams and the durable consumer exist by the time the target binds. It is
// closed after the target stops. A broker that cannot start ends the run
// as a target that cannot start does (exit 3), naming the broker.
func (e *environment) startBroker(ctx context.Context) (string, error) {
	if !e.spec.UsesBroker() {
		return "", nil
	}
	q := e.spec.QueueConsumer
	b, err := natsbroker.StartNATS(ctx, natsbroker.Config{Stream: q.Stream, Subject: q.Subject, Consumer: q.Consumer,
		AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, DeadLetter: q.DeadLetter, Events: e.spec.Outbox.Subject})
	if err != nil {
		return "", fmt.Errorf("%w: the broker (%s): %w", ErrUnhealthy, cmp.Or(q.Broker, targets.BrokerNATS), err)
	}
	e.broker = b
	e.closers = append(e.closers, b.Close)
	return b.URL(), nil
}

// specQueue adapts the spec's queue_consumer section to the harness of the
// copy in env: its broker, and its target's crash. The zero policy when
// the spec declares no consumer.
func specQueue(t *targets.Target, env *environment) check.QueuePolicy {
	q := t.QueueConsumer
	if !q.Declared() || env.broker == nil {
		return check.QueuePolicy{}
	}
	return check.QueuePolicy{Broker: env.broker, AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, DeadLetter: q.DeadLetter,
		Body: messageBody(q.Body), Poison: messageBody(q.Poison), Crash: env.running.CrashFunc}
}

// messageBody renders a queue_consumer body template for a message.
func messageBody(tmpl string) func(check.Values) ([]byte, error) {
	return func(v check.Values) ([]byte, error) {
		s, err := targets.Render(tmpl, targets.RequestValues{Key: v.Key, Amount: v.Amount, Tenant: v.Tenant, Seq: v.Seq})
		return []byte(s), err
	}
}

// specOutbox adapts the spec's outbox section to the harness of the copy
// in env: its broker, trigger and crash. The zero policy when the spec
// declares no outbox.
func specOutbox(t *targets.Target, env *environment) check.OutboxPolicy {
	o := t.Outbox
	if !o.Declared() || env.broker == nil {
		return check.OutboxPolicy{}
	}
	p := check.OutboxPolicy{Broker: env.broker, Crash: env.running.CrashFunc}
	if i := slices.IndexFunc(t.Operations, func(op targets.Operation) bool { return op.Name == o.Trigger }); i >= 0 {
		op := withEffect(t, adaptOperation(t, t.Operations[i]))
		p.Trigger = &op
	}
	return p
}
