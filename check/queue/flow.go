package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/targets"
)

// invalidMessage is QC-06's source: a message the receiver cannot process
// is set aside so that the ones behind it still flow.
const invalidMessage = "Hohpe and Woolf, Enterprise Integration Patterns (2003), Invalid Message Channel and Dead Letter Channel (a message that cannot be processed is moved aside, so it does not block the channel)"

// flowing (QC-06): a good message published right behind a poison one is
// acknowledged within ack_wait of its publish, however long the poison
// one takes to be dead-lettered: a consumer that retries the poison in
// place, holding its handler, stalls the whole queue behind it.
func flowing(ctx context.Context, q *qcase, m message) check.Result {
	poison, err := q.render(q.p.Poison, targets.DefaultQueuePoison, m)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	good := message{id: "msg_" + q.Key(), amount: q.Amount()}
	q.Track("", good.id)
	if good.body, err = q.render(q.p.Body, targets.DefaultQueueBody, good); err != nil {
		return check.Inconclusive("%v", err)
	}
	if _, err := q.p.Broker.Publish(ctx, m.id, poison); err != nil {
		return check.Inconclusive("%v", err)
	}
	sent := time.Now()
	seq, err := q.p.Broker.Publish(ctx, good.id, good.body)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	limit := q.wait(q.p.MaxDeliver + 1)
	evs := ofSeq(q.awaitSeq(ctx, good.id, seq, limit), seq)
	waited := time.Since(sent) // no ack by then, when none came
	want := fmt.Sprintf("the message published right behind a poison one acknowledged within the ack_wait (%s) of its publish", q.p.AckWait)
	ack := firstAck(evs)
	if ack == nil {
		// Unacknowledged after waited: at least that far past the ack_wait,
		// over a wait the journal's exchanges do not cover.
		r := check.Fail(want, fmt.Sprintf("not acknowledged in %s: %s; the poison one: %s", check.Ms(limit), story(evs), story(q.events(m.id))), q.Evidence()...)
		if waited > q.p.AckWait {
			r.Margin = waited - q.p.AckWait
			r.Waited = check.Span{From: sent, To: sent.Add(waited)}
		}
		return r
	}
	took := ack.At.Sub(sent)
	obs := fmt.Sprintf("acknowledged %s after its publish (delivery %d); the poison one: %s", check.Ms(took), ack.Delivered, story(q.events(m.id)))
	if took > q.p.AckWait {
		r := check.Fail(want, obs+": it waited behind the poison one", q.Evidence()...)
		r.Margin = took - q.p.AckWait
		r.Waited = check.Span{From: sent, To: ack.At}
		return r
	}
	return check.Pass(want, obs, q.Evidence()...)
}

// firstAck is the first ack (or term) in evs, or nil.
func firstAck(evs []broker.Event) *broker.Event {
	for i, e := range evs {
		if e.Kind == broker.Acked || e.Kind == broker.Terminated {
			return &evs[i]
		}
	}
	return nil
}
