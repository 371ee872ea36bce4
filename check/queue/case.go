package queue

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/targets"
)

// qcase is one case of the suite.
type qcase struct {
	*check.Case
	p     check.QueuePolicy
	cfg   Config
	start int // events of the broker journal before the case
}

// message is one message a case publishes: its id (Nats-Msg-Id), body,
// and the amount the body was rendered with.
type message struct {
	id     string
	body   []byte
	amount int
}

// withMessage adapts a check of one fresh message to the kit.
func withMessage(run func(ctx context.Context, q *qcase, m message) check.Result) func(context.Context, *check.Case) check.Result {
	return func(ctx context.Context, c *check.Case) check.Result {
		q := &qcase{Case: c, p: c.Harness.Policy.Queue, cfg: config(c.Harness)}
		if q.p.AckWait <= 0 {
			q.p.AckWait = time.Second
		}
		// What an earlier case left to settle is not this one's: wait for
		// the broker and the proxies to go quiet, then start the windows.
		if n, err := q.idle(ctx); err != nil || n > 0 {
			return check.Inconclusive("the consumer had not settled an earlier case's messages in %s (%d outstanding, %v): its answers would be taken for this case's", check.Ms(q.cfg.settle()), n, err)
		}
		c.Restart(ctx)
		q.start = len(q.p.Broker.Events())
		id := "msg_" + c.Key()
		c.Track("", id)
		m := message{id: id, amount: c.Amount()}
		body, err := q.render(q.p.Body, targets.DefaultQueueBody, m)
		if err != nil {
			return check.Inconclusive("%v", err)
		}
		m.body = body
		return check.BlameInnermost(c.Harness, run(ctx, q, m), "the innermost tier consumes the queue")
	}
}

// idle waits, bounded by the settle time, until the broker has no
// message outstanding, and returns how many were left.
func (q *qcase) idle(ctx context.Context) (int, error) {
	end := time.Now().Add(q.cfg.settle())
	for {
		n, err := q.p.Broker.Outstanding(ctx)
		if err != nil || n == 0 || !time.Now().Before(end) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// render renders a body for m's id and amount with f, or with tmpl, the
// spec's default, when f is nil.
func (q *qcase) render(f func(check.Values) ([]byte, error), tmpl string, m message) ([]byte, error) {
	v := check.Values{Key: m.id, Amount: m.amount}
	if f == nil {
		s, err := targets.Render(tmpl, targets.RequestValues{Key: m.id, Amount: m.amount})
		return []byte(s), err
	}
	b, err := f(v)
	if err != nil {
		return nil, fmt.Errorf("queue: message body: %w", err)
	}
	return b, nil
}

// events returns the broker journal's events of the case about message
// id: its publishes, the acknowledgements of its deliveries, and its
// dead-lettered copies (by Nats-Msg-Id, or a body that contains id).
func (q *qcase) events(id string) []broker.Event {
	all := q.p.Broker.Events()[q.start:]
	var out []broker.Event
	for _, e := range all {
		if e.MsgID == id || e.Kind == broker.DeadLettered && strings.Contains(string(e.Body), id) {
			out = append(out, e)
		}
	}
	return out
}

// await polls the journal until done holds for id's events or limit
// passes, and returns the events then.
func (q *qcase) await(ctx context.Context, id string, limit time.Duration, done func([]broker.Event) bool) []broker.Event {
	end := time.Now().Add(limit)
	for {
		evs := q.events(id)
		if done(evs) || !time.Now().Before(end) {
			return evs
		}
		select {
		case <-ctx.Done():
			return evs
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ackedPast is a done func for await: an ack (or a term) of a delivery
// later than delivery d, or the broker giving up on the message, after
// which no ack can come.
func ackedPast(d int) func([]broker.Event) bool {
	return func(evs []broker.Event) bool { return acked(evs, d) || firstOf(evs, broker.GaveUp) != nil }
}

// acked reports whether evs hold an ack (or a term) of a delivery later
// than d. Deliveries, not times, order the consumer's answers: the
// journal dates an event when it arrives, not when it was sent.
func acked(evs []broker.Event, d int) bool {
	for _, e := range evs {
		if (e.Kind == broker.Acked || e.Kind == broker.Terminated) && e.Delivered > d {
			return true
		}
	}
	return false
}

// story tells evs in one line, for an observation.
func story(evs []broker.Event) string {
	if len(evs) == 0 {
		return "the broker journal holds nothing of it"
	}
	parts := make([]string, 0, len(evs))
	t0 := evs[0].At
	for _, e := range evs {
		s := fmt.Sprintf("+%s %s", check.Ms(e.At.Sub(t0)), e.Kind)
		if e.Delivered > 0 {
			s += fmt.Sprintf(" #%d", e.Delivered)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// effects counts the case's effects, or says why they cannot be trusted.
func (q *qcase) effects(ctx context.Context) (check.Effects, string) {
	ef := q.Effects(ctx)
	return ef, q.Disagreed()
}

// wait is how long to wait for the consumer to act on a message that
// needs deliveries deliveries: each may wait out ack_wait, plus the
// suite's settle time.
func (q *qcase) wait(deliveries int) time.Duration {
	return time.Duration(deliveries)*q.p.AckWait + q.cfg.settle()
}
