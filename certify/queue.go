package certify

import (
	"context"
	"fmt"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/internal/natsbroker"
	"github.com/resilcheck/resilcheck/targets"
)

// startBroker starts the broker the spec's queue_consumer section asks
// for, before the target, which is handed its URL: the stream and the
// durable consumer exist by the time the target binds to them. It is
// closed after the target stops. A broker that cannot start ends the run
// as a target that cannot start does (exit 3), naming the broker.
func (e *environment) startBroker(ctx context.Context) (string, error) {
	q := e.spec.QueueConsumer
	if !q.Declared() {
		return "", nil
	}
	b, err := natsbroker.StartNATS(ctx, natsbroker.Config{Stream: q.Stream, Subject: q.Subject, Consumer: q.Consumer,
		AckWait: q.AckWait, MaxDeliver: q.MaxDeliver, DeadLetter: q.DeadLetter})
	if err != nil {
		return "", fmt.Errorf("%w: queue_consumer.broker %s: %w", ErrUnhealthy, q.Broker, err)
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
