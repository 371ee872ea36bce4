package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// minHedgeDelay is how long after an attempt began a call must start to be
// its hedged copy: a transport that replays a request at once after a
// reset (net/http does, for a POST with an idempotency key) sends the
// replay within a millisecond, and that is a second attempt, not a hedge.
const minHedgeDelay = 10 * time.Millisecond

// hedgeRace is how soon after an attempt's success a call may start and
// still be its hedged copy: a hedge timer that fires as the first copy's
// answer arrives sends a copy the moment after (seen: 1 ms). No retry
// follows a success, so such a call is no attempt of its own.
const hedgeRace = 20 * time.Millisecond

// Attempts groups one logical request's dependency calls into attempts, in
// the order they started. A call that starts while a call of the current
// attempt is still outstanding, and at least 10 ms after the attempt began,
// is a hedged copy in that attempt; any other call is a new attempt. The
// retry checks count attempts, and the hedging suite judges the copies, so
// a hedge is never mistaken for a retry, declared or not.
//
// A copy may overlap by a hair: the winner of a hedge that fails at once
// ends the attempt, and its loser is cancelled, within a millisecond; and
// a hedge may leave just after the first copy's success arrived, which
// joins the attempt too (within 20 ms). So a retry sent within the moment
// the proxy takes to notice an abandoned attempt joins that attempt, and
// the count errs low; it errs high for a hedge whose timer fires just as
// a failure arrives (after a success it joins), and copies sent together
// with the first (a hedging delay of 0) are attempts of their own.
func Attempts(calls []faults.Entry) [][]faults.Entry {
	return grouping{minGap: minHedgeDelay}.group(calls)
}

// Attempts groups calls as the package's Attempts does, knowing the
// hedging delay the target declares: a call that starts when the attempt's
// next hedge was due (its copies so far times the delay after it began),
// from the harness's slack before to hedgeLag slacks after that or after
// the success, where a copy was answered 2xx no sooner than the slack
// before then, is that hedge. On a busy runner the
// hedge timer and the success race, and the copy reaches the dependency
// after the success was journaled; no retry follows a success, and a copy
// on the declared schedule is the hedge the target said it sends.
func (h *Harness) Attempts(calls []faults.Entry) [][]faults.Entry {
	p := h.Policy.Hedging
	return grouping{minGap: minHedgeDelay, hedgeDelay: p.Delay, copies: p.Copies(), late: h.Slack()}.group(calls)
}

// Overlapping groups calls that overlap in time, in the order they started:
// a call that starts while a call of the current group is outstanding joins
// it, however soon after the group began. It is the hedging suite's view,
// where copies sent together with the first are copies too; the retry
// checks count Attempts.
//
// A call that ended with an answer counts as outstanding until margin
// before the end the proxy journaled: the proxy stamps the end a moment
// after the answer left (longer on a busy runner), and a retry sent as
// soon as the answer arrived may start within that moment; it is no copy.
// A call its client cancelled ends when the cancel was seen: a winning copy
// often ends its attempt, and has the loser cancelled, a millisecond after
// it began, and any margin would take it for an attempt of its own.
func Overlapping(calls []faults.Entry, margin time.Duration) [][]faults.Entry {
	return grouping{margin: margin}.group(calls)
}

// OnHedgeSchedule says a[i], a copy in attempt a, started when the
// target's declared hedging sends its ith copy (i delays after the
// attempt began): no sooner than the harness's slack before, and no later
// than hedgeLag slacks after that or after the copies before it ended.
func (h *Harness) OnHedgeSchedule(a []faults.Entry, i int) bool {
	d := h.Policy.Hedging.Delay
	if d <= 0 || i < 1 || i >= len(a) {
		return false
	}
	due, late := a[0].Received.Add(time.Duration(i)*d), h.Slack()
	var end time.Time // when the copies before it last ended
	for _, e := range a[:i] {
		end = latest(end, callEnd(e))
	}
	return !a[i].Received.Before(due.Add(-late)) && !a[i].Received.After(latest(due, end).Add(hedgeLag*late))
}

// grouping is how calls are grouped into attempts: a call joins a group
// only when it starts at least minGap after the group's first, an answered
// call is outstanding until margin before its journaled end but at least
// until its answer came back from upstream, and with a
// hedgeDelay a call on the hedging schedule (within late) after a success
// joins too.
type grouping struct {
	minGap, margin   time.Duration
	hedgeDelay, late time.Duration
	copies           int // the most copies of one attempt the target declares
}

// scheduledHedge says e starts when the next hedge of attempt a, which
// ended (its last copy) at end, was due, within g.late, and a copy was
// still outstanding then, give or take g.late.
func (g grouping) scheduledHedge(a []faults.Entry, end time.Time, e faults.Entry) bool {
	if g.hedgeDelay <= 0 || len(a) >= g.copies {
		return false
	}
	due := a[0].Received.Add(time.Duration(len(a)) * g.hedgeDelay)
	return !e.Received.Before(due.Add(-g.late)) && !e.Received.After(latest(due, end).Add(hedgeLag*g.late)) && !end.Add(g.late).Before(due)
}

// hedgeLag is how many slacks after the later of its due time and the
// success it raced a hedged copy may reach the dependency: the target's
// timer, its read of the success and its send are three scheduling points
// of the target's own process, which the runner's stall watch cannot see
// (on a loaded CI runner a copy came 70 ms after the success, 20 ms past a
// single slack).
const hedgeLag = 3

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (g grouping) group(calls []faults.Entry) [][]faults.Entry {
	minGap, margin := g.minGap, g.margin
	calls = slices.Clone(calls)
	slices.SortStableFunc(calls, func(a, b faults.Entry) int { return a.Received.Compare(b.Received) })
	var out [][]faults.Entry
	var end time.Time // when the current attempt's last outstanding copy ended
	won := false      // a copy of the current attempt was answered 2xx
	for _, e := range calls {
		n := len(out)
		joins := n > 0 && e.Received.Sub(out[n-1][0].Received) >= minGap &&
			(e.Received.Before(end) || won && (e.Received.Before(end.Add(hedgeRace)) || g.scheduledHedge(out[n-1], end, e)))
		if joins {
			out[n-1] = append(out[n-1], e)
		} else {
			out = append(out, []faults.Entry{e})
			end, won = time.Time{}, false
		}
		t := callEnd(e)
		st := AnswerStatus(e)
		if e.ClientGone.IsZero() && st != 0 {
			t = t.Add(-margin)
			// No call can answer an answer that did not exist yet: one
			// received before this one's answer came back is a copy,
			// however early the margin ends it (a hedged copy sent 27 µs
			// after its first, answered 0.2 ms later, went ungrouped).
			t = latest(t, e.Answered)
		}
		if t.After(end) {
			end = t
		}
		won = won || answered2xx(e)
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

// RacedHedges counts the attempts in attempts (as Harness.Attempts groups
// them) that may be a hedged copy of the attempt before them, sent by a
// target that read that attempt's failure late: each began when the
// declared hedging sends that attempt's next copy (from the harness's
// slack before to hedgeLag slacks after), though the copies before it had
// failed by then. late is the most any of them needs the target to have
// been late reading the failure (from its answer to the copy's start),
// and span runs over those waits. A target whose process the runner
// starves past the hedging delay fires its hedge timer first; a retry
// after a read failure waits its backoff, which may land there too, so
// such a count rests on time, not on the calls alone.
func (h *Harness) RacedHedges(attempts [][]faults.Entry) (n int, late time.Duration, span Span) {
	d, slack := h.Policy.Hedging.Delay, h.Slack()
	if d <= 0 {
		return 0, 0, Span{}
	}
	for i := 1; i < len(attempts); i++ {
		prev, e := attempts[i-1], attempts[i][0]
		if len(prev) >= h.Policy.Hedging.Copies() || slices.ContainsFunc(prev, answered2xx) {
			continue
		}
		var end time.Time
		for _, p := range prev {
			end = latest(end, callEnd(p))
		}
		due := prev[0].Received.Add(time.Duration(len(prev)) * d)
		if e.Received.Before(due.Add(-slack)) || e.Received.After(due.Add(hedgeLag*slack)) || !end.Before(e.Received) {
			continue
		}
		n++
		// A failure that came after the copy was due raced its timer: any
		// lateness explains it.
		fired := due
		if e.Received.Before(due) {
			fired = e.Received
		}
		late = max(late, fired.Sub(end), time.Millisecond)
		if span.From.IsZero() || end.Before(span.From) {
			span.From = end
		}
		span.To = latest(span.To, e.Received)
	}
	return n, late, span
}

// CallCount says how many calls one request made and, where hedged copies
// joined some (Attempts), in how many attempts.
func CallCount(calls []faults.Entry, attempts [][]faults.Entry) string {
	switch {
	case len(calls) == 1:
		return "1 call"
	case len(attempts) == len(calls):
		return fmt.Sprintf("%d calls", len(calls))
	}
	if len(attempts) == 1 {
		return fmt.Sprintf("%d calls in 1 attempt (the others hedged copies, overlapping the first)", len(calls))
	}
	return fmt.Sprintf("%d calls in %d attempts (the others hedged copies, overlapping the attempt they copy)", len(calls), len(attempts))
}

// answered2xx says e was answered 2xx.
func answered2xx(e faults.Entry) bool {
	st := AnswerStatus(e)
	return e.ClientGone.IsZero() && st >= 200 && st < 300
}
