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

// reordered (WH-09): the later of two events about one object is delivered
// first, then the earlier; the object's state stays what the later event
// made it. The earlier event is first delivered alone, for an object of its
// own, to show that the two events set different states: otherwise no
// order could show.
func reordered(ctx context.Context, c *check.Case) check.Result {
	w := begin(c)
	o := w.p.Ordering
	amount := w.Amount()
	alone, obj := check.Values{Key: w.Key(), Amount: amount}, check.Values{Key: w.Key(), Amount: amount}
	early, tookEarly, bad := w.applied(ctx, "the earlier event alone", o.Earlier, alone)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	late, tookLate, bad := w.applied(ctx, "the later event", o.Later, obj)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	if early == late {
		return check.Inconclusive("the earlier event alone set object %s's state to %s, as the later one set object %s's: the declared events (webhooks.ordering) cannot show an order", alone.Key, early, obj.Key)
	}
	body, err := o.Earlier(obj)
	if err != nil {
		return check.Inconclusive("webhooks.ordering.earlier: %v", err)
	}
	r := w.deliver(ctx, delivery{event: event{id: "msg_" + w.Key(), body: body}})
	want := fmt.Sprintf("the state the later event set (%s) kept when the earlier event arrives after it", late)
	obs := fmt.Sprintf("the later event set object %s's state to %s (the earlier alone sets %s); the earlier event, delivered next, got %s", obj.Key, late, early, check.Describe(r))
	// Watch as long as an event took to show, twice, and a quarter second:
	// a receiver that applies events after it answers rolls back as late.
	within := min(w.cfg.landing(), 2*max(tookEarly, tookLate)+250*time.Millisecond)
	now, err := w.watch(ctx, obj, late, within)
	switch {
	case err != nil:
		return check.Inconclusive("%s; the state could not be read again: %v", obs, err)
	case now != late:
		return blameReceiver(w, check.Fail(want, fmt.Sprintf("%s, and the state became %s: the out-of-order event rolled it back", obs, now), w.Evidence()...).Untimed())
	}
	return check.Pass(want, fmt.Sprintf("%s; the state stayed %s for %s", obs, late, check.Ms(within)), w.Evidence()...)
}

// applied delivers the event body renders for v, which must be accepted,
// and reads the state it leaves, waiting up to the landing time for one to
// read, and how long after the answer it showed; what names the event in
// what it says when it cannot.
func (w *wcase) applied(ctx context.Context, what string, render func(check.Values) ([]byte, error), v check.Values) (string, time.Duration, string) {
	body, err := render(v)
	if err != nil {
		return "", 0, fmt.Sprintf("webhooks.ordering: %s: %v", what, err)
	}
	if r := w.deliver(ctx, delivery{event: event{id: "msg_" + w.Key(), body: body}}); !is2xx(r) {
		return "", 0, fmt.Sprintf("%s for object %s got %s, not a 2xx: WH-07 judges accepting events", what, v.Key, check.Describe(r))
	}
	answered := time.Now()
	var state string
	for end := answered.Add(w.cfg.landing()); ; {
		state, err = w.p.Ordering.State(ctx, v)
		if err == nil || !time.Now().Before(end) || ctx.Err() != nil {
			break
		}
		check.Sleep(ctx, 50*time.Millisecond)
	}
	if err != nil {
		return "", 0, fmt.Sprintf("%s for object %s was accepted, but its state could not be read: %v", what, v.Key, err)
	}
	return state, time.Since(answered), ""
}

// watch reads v's state until it is no longer want, or within has passed:
// a receiver may apply an event after it answered.
func (w *wcase) watch(ctx context.Context, v check.Values, want string, within time.Duration) (string, error) {
	for end := time.Now().Add(within); ; {
		state, err := w.p.Ordering.State(ctx, v)
		if err != nil || state != want || !time.Now().Before(end) || ctx.Err() != nil {
			return state, err
		}
		check.Sleep(ctx, 50*time.Millisecond)
	}
}
