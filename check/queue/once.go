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
	t0 := time.Now()
	if _, err := q.p.Broker.Publish(ctx, m.id, m.body); err != nil {
		return check.Inconclusive("%v", err)
	}
	want := "the message acknowledged; 1 effect"
	evs := q.await(ctx, m.id, q.wait(1), ackedAfter(t0))
	if !acked(evs, t0) {
		return notTimed(check.Fail(want, fmt.Sprintf("no ack in %s: %s", check.Ms(q.wait(1)), story(evs)), q.Evidence()...))
	}
	return oneEffect(ctx, q, want, story(evs))
}

// again (QC-02): the message acknowledged, the same id is published again
// once the broker's duplicate window has passed, as a publisher that did
// not see its first publish confirmed sends it; the consumer acknowledges
// the copy and makes no second effect.
func again(ctx context.Context, q *qcase, m message) check.Result {
	t0 := time.Now()
	if _, err := q.p.Broker.Publish(ctx, m.id, m.body); err != nil {
		return check.Inconclusive("%v", err)
	}
	evs := q.await(ctx, m.id, q.wait(1), ackedAfter(t0))
	if !acked(evs, t0) {
		return check.Inconclusive("the first copy was not acknowledged in %s (%s): QC-01 judges that", check.Ms(q.wait(1)), story(evs))
	}
	t1, err := publishAgain(ctx, q, m, t0)
	if err != nil {
		return check.Inconclusive("%v", err)
	}
	want := "the copy acknowledged; 1 effect for the message id"
	evs = q.await(ctx, m.id, q.wait(1), ackedAfter(t1))
	if !acked(evs, t1) {
		return notTimed(check.Fail(want, fmt.Sprintf("the copy was not acknowledged in %s: %s", check.Ms(q.wait(1)), story(evs)), q.Evidence()...))
	}
	return oneEffect(ctx, q, want, "2 stream messages with one id: "+story(evs))
}

// publishAgain publishes m again once the broker's duplicate window since
// t0 has passed, so the broker stores the copy rather than drop it. The
// server forgets ids on a timer that may fire late, so a copy it still
// drops is published again, for a bounded time. It returns when the copy
// was stored.
func publishAgain(ctx context.Context, q *qcase, m message, t0 time.Time) (time.Time, error) {
	wait := time.Until(t0.Add(broker.DupWindow() + 20*time.Millisecond))
	end := time.Now().Add(wait + q.cfg.settle())
	for {
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(max(wait, 0)):
		}
		t1 := time.Now()
		_, err := q.p.Broker.Publish(ctx, m.id, m.body)
		if !errors.Is(err, broker.ErrDuplicate) || !t1.Before(end) {
			return t1, err
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
		return notTimed(check.Fail(want, obs, q.Evidence()...))
	}
	return check.Pass(want, obs, q.Evidence()...)
}
