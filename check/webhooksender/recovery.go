package webhooksender

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// outage answers every delivery with fault until it is over, and passes
// every delivery after.
type outage struct {
	fault faults.Fault
	over  atomic.Bool
}

// Inject applies the fault while the outage lasts.
func (o *outage) Inject(ex *faults.Exchange) error {
	if o.over.Load() {
		return ex.Pass()
	}
	return o.fault.Inject(ex)
}

// recovering (WS-10): events emitted one after another while the endpoint
// is down keep their own retry schedules when it comes back: the first
// delivery of each after the recovery does not come in one burst. A sender
// that holds its retries while the endpoint fails and releases them all at
// the first success (a breaker that flushes its queue) puts the whole
// backlog on the endpoint at the instant it recovers. A breaker that holds
// them longer than twice the second wait and the grace sends nothing in
// the window, which is inconclusive, not a pass.
func recovering(ctx context.Context, s *scase) check.Result {
	n := s.cfg.events()
	first := s.p.Wait(1)
	down := &outage{fault: internalError}
	// Emitted the first wait over n apart, the events' retries fall over a
	// whole first wait even without jitter.
	if bad := s.triggerPaced(ctx, n, max(first/time.Duration(n), time.Millisecond), 0, down); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	s.awaitEvents(ctx, s.from, s.window(1), func(evs [][]attempt) bool { return len(evs) >= n })
	down.over.Store(true)
	recovered := time.Now() // after the switch: no attempt after it got the outage's 500
	evs := s.awaitEvents(ctx, recovered, s.window(2), func(evs [][]attempt) bool { return deliveredSince(evs, recovered) == len(evs) })
	return judgeRecovery(evs, n, recovered, s.cfg.bucket(first))
}

// judgeRecovery judges the first delivery after recovered of each of evs,
// n events emitted during an outage, against one bucket.
func judgeRecovery(evs [][]attempt, n int, recovered time.Time, bucket time.Duration) check.Result {
	var after []time.Duration
	var ev []faults.Entry
	for _, as := range evs {
		ev = append(ev, evidence(as)...)
		if i := slices.IndexFunc(as, func(a attempt) bool { return a.at.After(recovered) }); i >= 0 {
			after = append(after, as[i].at.Sub(recovered))
		}
	}
	if len(evs) < n {
		return check.Inconclusive("%d of %d events emitted during the outage were ever delivered", len(evs), n)
	}
	if len(after) < (n+1)/2 {
		return check.Inconclusive("%d of %d events emitted during the outage were delivered again after the endpoint recovered (the others had spent their attempts, or none came): too few to tell a burst", len(after), n)
	}
	want := fmt.Sprintf("at most %.0f%% of the backlog's first deliveries after the recovery in one %s bucket", 100*lockstepShare, bucket)
	return judgeBuckets(after, bucket, want, func(most int) string {
		return fmt.Sprintf("%d events emitted during the outage; %d delivered again after it, from %s to %s after the recovery, %d of them in the busiest %s bucket",
			n, len(after), ms(after[0]), ms(after[len(after)-1]), most, bucket)
	}, "the backlog came in one burst", ev)
}

// deliveredSince counts the events of evs with an attempt after t.
func deliveredSince(evs [][]attempt, t time.Time) int {
	k := 0
	for _, as := range evs {
		if slices.ContainsFunc(as, func(a attempt) bool { return a.at.After(t) }) {
			k++
		}
	}
	return k
}
