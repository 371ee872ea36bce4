package webhooksender

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// lockstepShare is the share of first waits in one bucket above which
// WS-08 calls the retries lockstep: of 16, 13 or more. A uniform jitter over
// five buckets or more puts that many in one almost never; no jitter puts
// all of them there, give or take the runner's scheduling.
const lockstepShare = 0.75

// suspectShare is the share above which WS-08's pass is trusted only from
// a run the runner did not stall a bucket's length in: lockstep retries a
// stall dispersed look like this.
const suspectShare = 0.5

// spread (WS-08): events emitted together whose first deliveries all fail
// at the same instant are retried apart: each event's first wait, from
// the failure's answer to the retry, falls in a bucket of its own often
// enough that no bucket holds more than lockstepShare of them. A pass is
// not trusted when more than lockstepShare of the waits still fall within
// one window twice as wide as the span the first deliveries arrived over
// (capped at two and a half buckets), so the check runs again: that span
// is how much the sender's and runner's handling of simultaneous events
// alone spreads them, and a wait carries that handling twice, reading the
// failure's answer and sending the retry. A CI run saw a sender retrying
// all 200 ms after their failures under load spread its first waits from
// 202 to 260 ms, 11 of 16 in the busiest 40 ms.
func spread(ctx context.Context, s *scase) check.Result {
	n := s.cfg.events()
	if bad := s.triggerAll(ctx, n, 1, newTogether(n, togetherLimit(s.p.AttemptTimeout), internalError)); bad != "" {
		return check.Inconclusive("%s", bad)
	}
	evs := s.awaitEvents(ctx, s.from, s.window(1), func(evs [][]attempt) bool { return retriedEvents(evs) == n })
	return judgeSpread(evs, n, s.cfg.bucket(s.p.Wait(1)))
}

// judgeSpread judges the first waits of evs, n events emitted together,
// against one bucket.
func judgeSpread(evs [][]attempt, n int, bucket time.Duration) check.Result {
	var waits []time.Duration
	var ev []faults.Entry
	for _, as := range evs {
		ev = append(ev, evidence(as)...)
		if len(as) >= 2 {
			waits = append(waits, as[1].at.Sub(failedAt(as[0])))
		}
	}
	if len(waits) < (n+1)/2 {
		return check.Inconclusive("%d of %d events emitted together were retried: too few first waits to tell jitter", len(waits), n)
	}
	want := fmt.Sprintf("at most %.0f%% of the first waits of events failing together in one %s bucket", 100*lockstepShare, bucket)
	r := judgeBuckets(waits, bucket, want, func(most int) string {
		return fmt.Sprintf("%d of %d first waits in the busiest %s bucket; first waits from %s to %s", most, len(waits), bucket, ms(waits[0]), ms(waits[len(waits)-1]))
	}, "lockstep, every event is retried at the same instant", ev)
	if r.Status != reports.StatusPass {
		return r
	}
	firsts := firstsSpan(evs)
	handling := min(2*firsts, bucket*5/2)
	if most := maxInWindow(waits, handling); handling > bucket && float64(most) > lockstepShare*float64(len(waits)) {
		r = check.NoisyRunner("%d of %d first waits fall within %s, twice the %s over which the first deliveries of the events triggered together arrived: the sender's and this runner's own handling of simultaneous events spread them that much, and a wait carries it twice (the failure read, the retry sent), so retries no more spread than that cannot be told from lockstep", most, len(waits), ms(handling), ms(firsts))
		r.Evidence = ev
	}
	return r
}

// firstsSpan is how far apart the first attempts of evs arrived: the
// triggers were sent together, so this is how much handling simultaneous
// events alone spreads them on this sender and runner, the noise a
// retry's wait carries too. Under load it reaches 100 ms where a quiet
// machine shows 30 ms.
func firstsSpan(evs [][]attempt) time.Duration {
	var lo, hi time.Time
	for _, as := range evs {
		if len(as) == 0 {
			continue
		}
		if t := as[0].at; lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if t := as[0].at; t.After(hi) {
			hi = t
		}
	}
	return hi.Sub(lo)
}

// judgeBuckets sorts ds and fails them when more than lockstepShare fall
// in one bucket, saying obs of the busiest's count and then burst; a pass
// with more than suspectShare there is trusted only from a run the runner
// did not stall a bucket's length in, since a stall disperses a burst.
func judgeBuckets(ds []time.Duration, bucket time.Duration, want string, obs func(most int) string, burst string, ev []faults.Entry) check.Result {
	slices.Sort(ds)
	most := maxInWindow(ds, bucket)
	share := float64(most) / float64(len(ds))
	if share > lockstepShare {
		return check.Fail(want, obs(most)+": "+burst, ev...)
	}
	r := check.Pass(want, obs(most), ev...)
	if share > suspectShare {
		r.Quiet = bucket
	}
	return r
}

// maxInWindow is the most of the sorted ds within any span of width w.
func maxInWindow(ds []time.Duration, w time.Duration) int {
	most, lo := 0, 0
	for hi := range ds {
		for ds[hi]-ds[lo] > w {
			lo++
		}
		most = max(most, hi-lo+1)
	}
	return most
}

// retriedEvents counts the events of evs with a second attempt.
func retriedEvents(evs [][]attempt) int {
	n := 0
	for _, as := range evs {
		if len(as) >= 2 {
			n++
		}
	}
	return n
}

// lastAttempt is when the latest attempt of evs came, or from.
func lastAttempt(evs [][]attempt, from time.Time) time.Time {
	for _, as := range evs {
		if t := as[len(as)-1].at; t.After(from) {
			from = t
		}
	}
	return from
}

// failedAt is when the sender got a's answer: when the endpoint finished
// it, or when it arrived for an entry without that time.
func failedAt(a attempt) time.Time {
	if a.entry.Finished.After(a.at) {
		return a.entry.Finished
	}
	return a.at
}
