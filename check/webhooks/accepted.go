package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// accepted (WH-07): one valid, freshly signed event must be answered 2xx
// and make exactly one effect.
func accepted(ctx context.Context, w *wcase, ev event) check.Result {
	r := w.deliver(ctx, delivery{event: ev})
	ef, bad := w.landed(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	want := "a 2xx and exactly 1 effect"
	obs := fmt.Sprintf("%s and %d effects (%s)", check.Describe(r), ef.Total, ef)
	if !is2xx(r) || ef.Total != 1 {
		return check.Fail(want, obs, w.Evidence()...).Untimed()
	}
	return check.Pass(want, obs, w.Evidence()...)
}

// durable (WH-08): the receiver is killed as soon as it answers a valid
// event 2xx, and started again; the event's effect is still there. A 2xx
// ends the provider's deliveries, so an effect the receiver still held
// only in memory (answered first, processed later) is lost for good.
func durable(ctx context.Context, w *wcase, ev event) check.Result {
	r := w.deliver(ctx, delivery{event: ev})
	if !is2xx(r) {
		return check.Inconclusive("the delivery was not accepted (%s): WH-07 judges that", check.Describe(r))
	}
	answered := time.Now()
	if err := w.p.Crash(ctx); err != nil {
		return check.Inconclusive("the receiver did not come back after the crash: %v", err)
	}
	back := time.Since(answered)
	ef, bad := w.landed(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	want := "1 effect after the crash that followed the 2xx"
	obs := fmt.Sprintf("%s, then the receiver killed and restarted (%s); %d effects (%s)", check.Describe(r), check.Ms(back), ef.Total, ef)
	if ef.Total != 1 {
		return blameReceiver(w, check.Fail(want, obs, w.Evidence()...).Untimed())
	}
	return check.Pass(want, obs, w.Evidence()...)
}
