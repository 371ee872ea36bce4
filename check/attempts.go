package check

import (
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// minHedgeDelay is how long after an attempt began a call must start to be
// its hedged copy: a transport that replays a request at once after a
// reset (net/http does, for a POST with an idempotency key) sends the
// replay within a millisecond, and that is a second attempt, not a hedge.
const minHedgeDelay = 10 * time.Millisecond

// Attempts groups one logical request's dependency calls into attempts, in
// the order they started. A call that starts while a call of the current
// attempt is still outstanding, and at least 10 ms after the attempt began,
// is a hedged copy in that attempt; any other call is a new attempt. The
// retry checks count attempts, and the hedging suite judges the copies, so
// a hedge is never mistaken for a retry, declared or not.
//
// A copy may overlap by a hair: the winner of a hedge that fails at once
// ends the attempt, and its loser is cancelled, within a millisecond. So a
// retry sent within the moment the proxy takes to notice an abandoned
// attempt joins that attempt: the count errs low, never high. Copies sent
// together with the first (a hedging delay of 0) are attempts of their own.
func Attempts(calls []faults.Entry) [][]faults.Entry { return overlapping(calls, minHedgeDelay) }

// Overlapping groups calls that overlap in time, in the order they started:
// a call that starts while a call of the current group is outstanding joins
// it, however soon after the group began. It is the hedging suite's view,
// where copies sent together with the first are copies too; the retry
// checks count Attempts.
func Overlapping(calls []faults.Entry) [][]faults.Entry { return overlapping(calls, 0) }

// overlapping groups calls as Attempts does, a call joining a group only
// when it starts at least minGap after the group's first.
func overlapping(calls []faults.Entry, minGap time.Duration) [][]faults.Entry {
	calls = slices.Clone(calls)
	slices.SortStableFunc(calls, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	var out [][]faults.Entry
	var end time.Time // when the current attempt's last outstanding copy ended
	for _, e := range calls {
		if n := len(out); n > 0 && e.Received.Before(end) && e.Received.Sub(out[n-1][0].Received) >= minGap {
			out[n-1] = append(out[n-1], e)
		} else {
			out = append(out, []faults.Entry{e})
			end = time.Time{}
		}
		if t := callEnd(e); t.After(end) {
			end = t
		}
	}
	return out
}

// callEnd is when the target stopped waiting for e: its client went away,
// or the exchange finished.
func callEnd(e faults.Entry) time.Time {
	if !e.ClientGone.IsZero() && e.ClientGone.Before(e.Finished) {
		return e.ClientGone
	}
	return e.Finished
}
