package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

// once (QC-01): a message published once is acknowledged and makes one
// effect.
func once(ctx context.Context, q *qcase, m message) check.Result {
	seq, err := q.p.Broker.Publish(ctx, m.id, m.body)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	want := "the message acknowledged; 1 effect"
	evs := q.awaitSeq(ctx, m.id, seq, q.wait(1))
	if !acked(ofSeq(evs, seq), 0) {
		return check.Fail(want, fmt.Sprintf("no ack in %s: %s", check.Ms(q.wait(1)), story(evs)), q.Evidence()...)
	}
	return oneEffect(ctx, q, want, story(evs))
}

// again (QC-02): the message acknowledged, the same id is published again
// once the broker's duplicate window has passed, as a publisher that did
// not see its first publish confirmed sends it; the consumer acknowledges
// the copy and makes no second effect.
func again(ctx context.Context, q *qcase, m message) check.Result {
	t0 := time.Now()
	seq, err := q.p.Broker.Publish(ctx, m.id, m.body)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	evs := q.awaitSeq(ctx, m.id, seq, q.wait(1))
	if !acked(ofSeq(evs, seq), 0) {
		return check.Inconclusive("the first copy was not acknowledged in %s (%s): QC-01 judges that", check.Ms(q.wait(1)), story(evs))
	}
	seq2, err := publishAgain(ctx, q, m, t0)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	want := "the copy acknowledged; 1 effect for the message id"
	evs = q.awaitSeq(ctx, m.id, seq2, q.wait(1))
	if !acked(ofSeq(evs, seq2), 0) {
		return check.Fail(want, fmt.Sprintf("the copy was not acknowledged in %s: %s", check.Ms(q.wait(1)), story(evs)), q.Evidence()...)
	}
	return oneEffect(ctx, q, want, "2 stream messages with one id: "+story(evs))
}

// awaitSeq waits, at most limit, until stream message seq of id is
// acknowledged or the broker gave up on it.
func (q *qcase) awaitSeq(ctx context.Context, id string, seq uint64, limit time.Duration) []broker.Event {
	return q.await(ctx, id, limit, func(evs []broker.Event) bool { return ackedPast(0)(ofSeq(evs, seq)) })
}

// ofSeq returns the events of evs about stream message seq.
func ofSeq(evs []broker.Event, seq uint64) []broker.Event {
	var out []broker.Event
	for _, e := range evs {
		if e.Seq == seq {
			out = append(out, e)
		}
	}
	return out
}

// publishAgain publishes m again once the broker's duplicate window since
// t0 has passed, so the broker stores the copy rather than drop it. The
// server forgets ids on a timer that may fire late, so a copy it still
// drops is published again, for a bounded time. It returns the copy's
// stream sequence.
func publishAgain(ctx context.Context, q *qcase, m message, t0 time.Time) (uint64, error) {
	wait := time.Until(t0.Add(broker.DupWindow + 20*time.Millisecond))
	end := time.Now().Add(wait + q.cfg.settle())
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(max(wait, 0)):
		}
		at := time.Now()
		seq, err := q.p.Broker.Publish(ctx, m.id, m.body)
		if !errors.Is(err, broker.ErrDuplicate) || !at.Before(end) {
			return seq, err
		}
		wait = 25 * time.Millisecond
	}
}

// oneEffect judges that the case made exactly one effect. A consumer may
// ack before its effect lands, so a count of none is taken again until
// one shows or the settle time passes.
func oneEffect(ctx context.Context, q *qcase, want, seen string) check.Result {
	ef, bad := q.effects(ctx)
	for end := time.Now().Add(q.cfg.settle()); ef.Total == 0 && bad == "" && time.Now().Before(end) && ctx.Err() == nil; {
		time.Sleep(50 * time.Millisecond)
		ef, bad = q.effects(ctx)
	}
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	obs := fmt.Sprintf("%s; %d effects (%s)", seen, ef.Total, ef)
	if ef.Total != 1 {
		return check.Fail(want, obs, q.Evidence()...).Untimed()
	}
	return check.Pass(want, obs, q.Evidence()...)
}
