package webhooks

import (
	"context"
	"fmt"

	"github.com/resilcheck/resilcheck/check"
)

// accepted (WH-07): one valid, freshly signed event must be answered 2xx
// and make exactly one effect.
func accepted(ctx context.Context, w *wcase, ev event) check.Result {
	r := w.deliver(ctx, delivery{event: ev})
	ef, bad := w.effects(ctx)
	if bad != "" {
		return check.Inconclusive("%s", bad)
	}
	want := "a 2xx and exactly 1 effect"
	obs := fmt.Sprintf("%s and %d effects (%s)", check.Describe(r), ef.Total, ef)
	if !is2xx(r) || ef.Total != 1 {
		return notTimed(check.Fail(want, obs, w.Evidence()...))
	}
	return check.Pass(want, obs, w.Evidence()...)
}

// notTimed marks a failure no stall of the runner can cause: a count or a
// status.
func notTimed(r check.Result) check.Result {
	r.Margin = check.NotTimed
	return r
}
