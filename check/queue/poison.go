package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/targets"
)

// poison (QC-05): a message the consumer cannot process reaches the
// dead-letter subject after at most max_deliver deliveries, once, and the
// broker delivers it no more after that. Deliveries are counted by the
// consumer's answers, each of which names the delivery it answers.
func poison(ctx context.Context, q *qcase, m message) check.Result {
	body, err := q.render(q.p.Poison, targets.DefaultQueuePoison, m)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	if _, err := q.p.Broker.Publish(ctx, m.id, body); err != nil {
		return check.Inconclusive("%v", err)
	}
	maxd := q.p.MaxDeliver
	want := fmt.Sprintf("the message on %s once, after at most %d deliveries; none after it", q.p.DeadLetter, maxd)
	limit := q.wait(maxd)
	evs := q.await(ctx, m.id, limit, func(evs []broker.Event) bool {
		return firstOf(evs, broker.DeadLettered) != nil || firstOf(evs, broker.GaveUp) != nil ||
			firstOf(evs, broker.Terminated) != nil || deliveries(evs) > maxd
	})
	dl := firstOf(evs, broker.DeadLettered)
	if dl == nil {
		obs := fmt.Sprintf("nothing reached %s in %s: %s", q.p.DeadLetter, check.Ms(limit), story(evs))
		switch gave, n := firstOf(evs, broker.GaveUp), deliveries(evs); {
		case gave != nil:
			obs = fmt.Sprintf("the broker gave up on it after %d deliveries and nothing reached %s: %s", gave.Delivered, q.p.DeadLetter, story(evs))
		case firstOf(evs, broker.Terminated) != nil:
			obs = fmt.Sprintf("the consumer terminated it without a copy on %s: %s", q.p.DeadLetter, story(evs))
		case n > maxd:
			obs = fmt.Sprintf("answered at delivery %d, past the %d declared, and not dead-lettered: %s", n, maxd, story(evs))
		}
		return check.Fail(want, obs, q.Evidence()...)
	}
	// A consumer that dead-letters the message but does not settle it gets
	// it again an ack_wait later: wait that out, and half as much again.
	quiet := q.p.AckWait + q.p.AckWait/2
	select {
	case <-ctx.Done():
		return check.Inconclusive("%v", ctx.Err())
	case <-time.After(time.Until(dl.At.Add(quiet))):
	}
	evs = q.events(m.id)
	n, at := deliveries(evs), settledAt(evs, dl.At, q.p.AckWait/2)
	copies := 0
	for _, e := range evs {
		if e.Kind == broker.DeadLettered {
			copies++
		}
	}
	obs := fmt.Sprintf("dead-lettered at delivery %d: %s", max(at, 1), story(evs))
	switch gave := firstOf(evs, broker.GaveUp); {
	case n > maxd:
		return check.Fail(want, obs+fmt.Sprintf("; answered at delivery %d, past the %d declared", n, maxd), q.Evidence()...).Untimed()
	case n > at && at > 0:
		return check.Fail(want, obs+fmt.Sprintf("; delivered again after it was dead-lettered (delivery %d): the consumer did not settle it", n), q.Evidence()...)
	case copies > 1:
		return check.Fail(want, obs+fmt.Sprintf("; %d copies on %s: the consumer did not settle it", copies, q.p.DeadLetter), q.Evidence()...).Untimed()
	case gave != nil && gave.At.After(dl.At):
		return check.Fail(want, obs+fmt.Sprintf("; the broker kept delivering it until it gave up after %d deliveries: the consumer did not settle it", gave.Delivered), q.Evidence()...)
	}
	return check.Pass(want, obs, q.Evidence()...)
}

// settledAt is the delivery the consumer dead-lettered: the one its first
// answer soon after the dead-lettered copy (at) names, a term as a rule:
// sooner than within, before which no redelivery can come; else the
// highest it answered before.
func settledAt(evs []broker.Event, at time.Time, within time.Duration) int {
	for _, e := range evs {
		if e.At.After(at) && e.At.Before(at.Add(within)) && answers(e) {
			return e.Delivered
		}
	}
	n := 0
	for _, e := range evs {
		if !e.At.After(at) && answers(e) {
			n = max(n, e.Delivered)
		}
	}
	return n
}

// answers reports whether e is the consumer's answer to a delivery.
func answers(e broker.Event) bool {
	switch e.Kind {
	case broker.Acked, broker.Nacked, broker.Terminated, broker.InProgress:
		return e.Delivered > 0
	}
	return false
}

// deliveries is the highest delivery the consumer answered in evs.
func deliveries(evs []broker.Event) int {
	n := 0
	for _, e := range evs {
		if answers(e) {
			n = max(n, e.Delivered)
		}
	}
	return n
}

// firstOf returns the first of evs of kind k, or nil.
func firstOf(evs []broker.Event, k broker.Kind) *broker.Event {
	for i := range evs {
		if evs[i].Kind == k {
			return &evs[i]
		}
	}
	return nil
}
