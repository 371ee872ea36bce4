package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// badSignature (WH-04): a delivery whose signature has one bit of its MAC
// flipped is refused with a 4xx and makes no effect.
func badSignature(ctx context.Context, w *wcase, ev event) check.Result {
	at := time.Now()
	return refused(ctx, w, "a signature with one bit flipped", delivery{event: ev, at: at, sig: w.forged(ev, at)})
}

// missingSignature (WH-05): a delivery with webhook-id and
// webhook-timestamp but no webhook-signature is refused with a 4xx and
// makes no effect.
func missingSignature(ctx context.Context, w *wcase, ev event) check.Result {
	return refused(ctx, w, "no webhook-signature", delivery{event: ev, unsigned: true})
}

// staleTimestamp (WH-06): a delivery correctly signed over a timestamp
// Config.Stale old is refused with a 4xx and makes no effect.
func staleTimestamp(ctx context.Context, w *wcase, ev event) check.Result {
	old := w.cfg.stale()
	return refused(ctx, w, fmt.Sprintf("a valid signature over a timestamp %s old", old), delivery{event: ev, at: time.Now().Add(-old)})
}

// futureTimestamp (WH-06b): a delivery correctly signed over a timestamp
// Config.Stale ahead is refused with a 4xx and makes no effect: the
// libraries' tolerance holds both ways, so a delivery signed ahead of time
// cannot be held back and replayed.
func futureTimestamp(ctx context.Context, w *wcase, ev event) check.Result {
	ahead := w.cfg.stale()
	return refused(ctx, w, fmt.Sprintf("a valid signature over a timestamp %s ahead", ahead), delivery{event: ev, at: time.Now().Add(ahead)})
}

// refused delivers broken (broken as what says), then the same event
// valid: the first must be refused with a 4xx and no effect, and the second
// accepted with one. That shows the refusal was for what was broken (a
// receiver refusing every delivery leaves the check inconclusive) and that
// the refused delivery did not use up the event's id.
func refused(ctx context.Context, w *wcase, what string, broken delivery) check.Result {
	want := fmt.Sprintf("a delivery with %s refused with a 4xx and no effect", what)
	r := w.deliver(ctx, broken)
	ef, bad := w.effects(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	obs := fmt.Sprintf("%s and %d effects (%s)", check.Describe(r), ef.Total, ef)
	if !is4xx(r) || ef.Total != 0 {
		return check.Fail(want, obs, w.Evidence()...).Untimed()
	}
	valid := w.deliver(ctx, delivery{event: broken.event})
	after, bad := w.landed(ctx)
	switch {
	case bad != "":
		return check.Inconclusive("%s", bad)
	case !is2xx(valid) || after.Total != 1:
		return check.Inconclusive("the receiver refused the broken delivery (%s), but the same event validly signed got %s and %d effects: nothing shows the refusal was for %s",
			obs, check.Describe(valid), after.Total, what)
	}
	return check.Pass(want, obs+"; the same event validly signed then got "+check.Describe(valid)+" and 1 effect", w.Evidence()...)
}
