package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// stripeOrdering is WH-09's source: providers do not deliver events in the
// order they made them.
const stripeOrdering = "Stripe, Best practices for using webhooks (docs.stripe.com/webhooks, §Event ordering: events are not guaranteed to arrive in the order they were generated)"

// reordered (WH-09): of two events about one object, the later delivered
// first and then the earlier, the earlier is accepted (2xx, or the
// provider delivers it again for days) and leaves the state the later one
// set. On a second object the two go in order, which shows they set
// different states and that the receiver moves an object on to a later
// event's state at all: a receiver that keeps the first state it sees
// would otherwise pass.
func reordered(ctx context.Context, c *check.Case) check.Result {
	w := begin(c)
	o := w.p.Ordering
	amount := w.Amount()
	inOrder, outOfOrder := check.Values{Key: w.Key(), Amount: amount}, check.Values{Key: w.Key(), Amount: amount}
	late, bad := w.applied(ctx, "the later event", o.Later, outOfOrder)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	early, bad := w.applied(ctx, "the earlier event", o.Earlier, inOrder)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	if early == late {
		return check.Inconclusive("the earlier event set object %s's state to %s, as the later one set object %s's: the declared events (webhooks.ordering) cannot show an order", inOrder.Key, early, outOfOrder.Key)
	}
	want := fmt.Sprintf("in order, the later event moves the state from %s to %s; out of order, the earlier is answered 2xx and the state stays %s", early, late, late)
	body, err := o.Later(inOrder)
	if err != nil {
		return check.Inconclusive("webhooks.ordering.later: %v", err)
	}
	if r := w.deliver(ctx, delivery{event: event{id: "msg_" + w.Key(), body: body}}); !is2xx(r) {
		return check.Inconclusive("the later event after the earlier one, for object %s, got %s, not a 2xx: WH-07 judges accepting events", inOrder.Key, check.Describe(r))
	}
	if now, err := w.watch(ctx, inOrder, early); err != nil || now != late {
		return blameReceiver(w, check.Fail(want, fmt.Sprintf("delivered in order, the later event left object %s's state at %s (%v): the receiver keeps the first state it is told", inOrder.Key, now, err), w.Evidence()...).Untimed())
	}
	if body, err = o.Earlier(outOfOrder); err != nil {
		return check.Inconclusive("webhooks.ordering.earlier: %v", err)
	}
	r := w.deliver(ctx, delivery{event: event{id: "msg_" + w.Key(), body: body}})
	obs := fmt.Sprintf("in order, object %s went from %s to %s; out of order, the later event set object %s's state to %s and the earlier, delivered next, got %s", inOrder.Key, early, late, outOfOrder.Key, late, check.Describe(r))
	now, err := w.watch(ctx, outOfOrder, late)
	switch {
	case err != nil:
		return check.Inconclusive("%s; the state could not be read again: %v", obs, err)
	case now != late:
		return blameReceiver(w, check.Fail(want, fmt.Sprintf("%s, and the state became %s: the out-of-order event rolled it back", obs, now), w.Evidence()...).Untimed())
	case !is2xx(r):
		return blameReceiver(w, check.Fail(want, obs+": an answer other than 2xx is a failed delivery, which the provider sends again", w.Evidence()...).Untimed())
	}
	return check.Pass(want, fmt.Sprintf("%s; the state stayed %s for %s", obs, late, check.Ms(w.cfg.landing())), w.Evidence()...)
}

// applied delivers the event body renders for v, which must be accepted,
// and reads the state it leaves, waiting up to the landing time for one to
// read; what names the event in what it says when it cannot.
func (w *wcase) applied(ctx context.Context, what string, render func(check.Values) ([]byte, error), v check.Values) (string, string) {
	body, err := render(v)
	if err != nil {
		return "", fmt.Sprintf("webhooks.ordering: %s: %v", what, err)
	}
	if r := w.deliver(ctx, delivery{event: event{id: "msg_" + w.Key(), body: body}}); !is2xx(r) {
		return "", fmt.Sprintf("%s for object %s got %s, not a 2xx: WH-07 judges accepting events", what, v.Key, check.Describe(r))
	}
	var state string
	for end := time.Now().Add(w.cfg.landing()); ; {
		state, err = w.p.Ordering.State(ctx, v)
		if err == nil || !time.Now().Before(end) || ctx.Err() != nil {
			break
		}
		check.Sleep(ctx, 50*time.Millisecond)
	}
	if err != nil {
		return "", fmt.Sprintf("%s for object %s was accepted, but its state could not be read: %v", what, v.Key, err)
	}
	return state, ""
}

// watch reads v's state until it is no longer from, or the landing time
// has passed: a receiver may apply an event after it answered.
func (w *wcase) watch(ctx context.Context, v check.Values, from string) (string, error) {
	for end := time.Now().Add(w.cfg.landing()); ; {
		state, err := w.p.Ordering.State(ctx, v)
		if err != nil || state != from || !time.Now().Before(end) || ctx.Err() != nil {
			return state, err
		}
		check.Sleep(ctx, 50*time.Millisecond)
	}
}
