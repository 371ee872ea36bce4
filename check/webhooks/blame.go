package webhooks

import (
	"fmt"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// blameReceiver lays a failed count of effects at the receiving tier when
// every hop carried exactly the deliveries the front proxy did: no tier
// re-sent one, so the effects are the last tier's. Copies of one event
// carry one id and cannot be followed hop by hop, which leaves the kit's
// rules unable to tell; on one tier, or when a hop carried more or fewer,
// r is returned as it is, for those rules.
func blameReceiver(w *wcase, r check.Result) check.Result {
	if r.Status != reports.StatusFail || len(w.Hops) == 0 {
		return r
	}
	n := len(w.Entries("front"))
	for _, hop := range w.Hops {
		if len(w.Entries(hop.Side())) != n {
			return r
		}
	}
	last := w.Hops[len(w.Hops)-1].To
	b := check.Blame{Tier: last, Why: fmt.Sprintf("every hop carried the %d deliveries once: the effects are the receiving tier's", n)}
	r.Tier, r.Observed = last, r.Observed+"; "+b.String()
	return r
}
