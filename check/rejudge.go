package check

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// doubt is why a check's first verdict is not trusted, so the check runs
// again (rejudged).
type doubt struct {
	// how says how the first run came to its verdict, after "the first
	// failed" or "the first passed"; empty for a first run the runner left
	// inconclusive (Result.Noisy), whose reason says it.
	how string
	// stalled says a stall beyond what the verdict could bear raised the
	// doubt, not a failure that did not replay.
	stalled bool
	// slowed says the doubt is a failure late by no more than the runner's
	// summed lateness: a rerun that fails again confirms it, stalled or
	// not, as two failures in a row are no longer what a few short delays
	// explain.
	slowed bool
}

// doubted is why res, c's first verdict, whose run the runner stalled as
// seen says, is not trusted; nil when it stands. Only timed checks are
// watched, so only their verdicts can be doubted by the stalls, one long
// or many short ones adding up to a failure's margin; any check the
// runner's slowness left inconclusive runs again, and so does
// an untimed property whose failure rapid could not replay (its rules may
// still rest on when calls came: RB-01p groups them into attempts by
// their gaps).
func (h *Harness) doubted(c Check, res Result, seen stalls) *doubt {
	limit := h.stallLimit(c, res)
	switch {
	case res.Noisy:
		return &doubt{}
	case !c.Timed && res.Status == reports.StatusFail && (res.Unreplayed || res.Untold):
		// Unwatched, so no margin to weigh: the rerun decides.
		return &doubt{how: "on a case that did not fail again " + replayWord(res)}
	case !c.Timed:
		return nil
	case stalledFailure(res, seen, limit):
		return &doubt{how: fmt.Sprintf("while the runner stalled %s, beyond the %s a timing verdict can bear", Ms(seen.worst), Ms(limit)), stalled: true}
	case stalledPass(res, seen):
		return &doubt{how: fmt.Sprintf("while the runner stalled %s, longer than the %s its pass could bear", Ms(seen.worst), Ms(res.Quiet)), stalled: true}
	case unreplayedFailure(res, seen):
		late := "by a time it did not measure"
		if res.Margin > 0 {
			late = Ms(res.Margin) + " past its bound"
		}
		return &doubt{how: fmt.Sprintf("on a case that did not fail again %s, late %s, while the runner's wake-ups came %s late in all", replayWord(res), late, Ms(seen.total))}
	case slowedFailure(res, seen):
		from, to := judgedSpan(res)
		return &doubt{how: fmt.Sprintf("late by %s past its bound, while the runner's wake-ups came %s late in all during its exchanges", Ms(res.Margin), Ms(seen.within(from, to))), slowed: true}
	}
	return nil
}

// unreplayedFailure says res is a property's timed failure whose shrunk
// case did not fail again on replay, or when retold, and which was late by
// no more than the runner was, summed over the run (Result.Unreplayed,
// Result.Untold): every copy's cases ran throughout, so the span of its
// evidence does not bound which delays it met.
func unreplayedFailure(res Result, seen stalls) bool {
	return res.Status == reports.StatusFail && (res.Unreplayed || res.Untold) && res.Margin != NotTimed && res.Margin <= seen.total
}

// replayWord says which replay of a property's shrunk case did not fail.
func replayWord(res Result) string {
	if res.Unreplayed {
		return "on replay"
	}
	return "when retold"
}

// rejudged is the verdict on a check whose first verdict, first, is
// doubted (d). That verdict is not trusted, so the check runs again: the
// same draws, with keys and tenants of its own (which a target that
// stores keys needs), so the same scenario is judged. A rerun stands if
// the runner kept within what its verdict can bear: a failure confirms
// the first run's, which is kept since the seed replays it, and a pass
// says what the first run saw. A rerun the runner disturbed too is run
// once more (a busy CI runner stalls in bursts, so two disturbed runs in
// a row are common there); after maxReruns disturbed reruns the check is
// inconclusive.
func (h *Harness) rejudged(parent context.Context, c Check, first Result, stalled stalls, d *doubt) Result {
	limit := h.stallLimit(c, first)
	worst := []time.Duration{stalled.worst}
	runs := []Result{first}
	var res Result
	for n := 1; ; n++ {
		var seen stalls
		res, seen = h.watched(parent, c, againID(c.ID, n))
		worst = append(worst, seen.worst)
		runs = append(runs, res)
		if !disturbedRerun(first, res, seen, limit, h.stallLimit(c, res)) || d.slowed && res.Status == reports.StatusFail {
			break
		}
		if n == maxReruns || parent.Err() != nil {
			if lateEveryRun(runs, worst) {
				first.Observed += fmt.Sprintf(" (this run failed %s, so the check ran again, twice, and each run failed later than its bound by more than twice the runner's longest stall in it (%s): %s)",
					d.how, msList(worst), withoutStory(res.Observed))
				return first
			}
			return noisy(first, res, worst, limit, d)
		}
	}
	firstSaw := withoutStory(first.Observed)
	again := "a second run"
	if len(worst) > 2 {
		again = fmt.Sprintf("run %d (the runner stalled %s during the runs between)", len(worst), msList(worst[1:len(worst)-1]))
	}
	var text string
	switch {
	case first.Status == reports.StatusInconclusive:
		text = fmt.Sprintf(" (on %s: the first was inconclusive, %s)", again, first.Reason)
	case first.Status == reports.StatusPass:
		text = fmt.Sprintf(" (on %s: the first passed %s: %s)", again, d.how, firstSaw)
	case res.Status == reports.StatusFail:
		how := "undisturbed, and failed again"
		if worst[len(worst)-1] > h.stallLimit(c, res) {
			how = "and failed again" // a slowed failure confirmed by a stalled one
		}
		first.Observed += fmt.Sprintf(" (this run failed %s, so the check ran again, %s: %s", d.how, how, withoutStory(res.Observed))
		if len(worst) > 2 {
			first.Observed += " on " + again
		}
		first.Observed += ")"
		return first
	default:
		text = fmt.Sprintf(" (on %s: the first failed %s: %s)", again, d.how, firstSaw)
	}
	if res.Status == reports.StatusPass || res.Status == reports.StatusFail {
		res.Observed += text
	} else {
		res.Reason += text
	}
	return res
}

// lateEveryRun says every run failed by a measured margin more than twice
// the runner's longest stall in it (worst, run by run): a stall delays
// what it interrupts by its length, and three failures in a row, each
// later than the worst two stalls of its run could make it, are the
// target's, however much the runner's many small delays add up over a
// long exchange.
func lateEveryRun(runs []Result, worst []time.Duration) bool {
	for i, r := range runs {
		if r.Status != reports.StatusFail || r.Margin <= 0 || r.Margin == NotTimed || r.Margin <= 2*worst[i] {
			return false
		}
	}
	return len(runs) > maxReruns
}

// maxReruns bounds how often a disturbed check runs again.
const maxReruns = 2

// disturbedRerun says a rerun of a check whose first run was doubted
// cannot decide either: the runner left it inconclusive; after a
// disturbed pass, it passed by a margin its own stall may have made or
// failed under a stall; after a doubted failure (or a first run the
// runner left inconclusive), it failed by less than its stalls or passed
// under a stall. firstLimit and limit are what the first verdict and the
// rerun's can bear (stallLimit).
func disturbedRerun(first, res Result, seen stalls, firstLimit, limit time.Duration) bool {
	switch {
	case res.Noisy:
		return true
	case first.Status == reports.StatusPass:
		return stalledPass(res, seen) || res.Status == reports.StatusFail && seen.worst > limit
	}
	return stalledFailure(res, seen, limit) || seen.worst > firstLimit && res.Status == reports.StatusPass
}

// noisy is the inconclusive verdict on a check whose first verdict was
// doubted (d) and no rerun of which the runner left undisturbed: worst
// holds each run's worst stall.
func noisy(first, last Result, worst []time.Duration, limit time.Duration, d *doubt) Result {
	lastSaid := map[bool]string{true: "failed", false: "passed"}[last.Status == reports.StatusFail]
	if last.Status == reports.StatusInconclusive {
		lastSaid = "was inconclusive"
	}
	lastSaw := withoutStory(last.Observed) + last.Reason
	runs := func(n int, what string) string {
		if w, ok := map[int]string{2: "two", 3: "three"}[n]; ok {
			return "during " + w + " " + what
		}
		return fmt.Sprintf("during %d %s", n, what)
	}
	var out Result
	switch {
	case first.Status == reports.StatusPass:
		out = NoisyRunner("the runner stalled %s %s, longer than the %s its first pass could bear: %s; the last %s: %s",
			msList(worst), runs(len(worst), "runs of this check"), Ms(first.Quiet), first.Observed, lastSaid, lastSaw)
	case first.Status == reports.StatusInconclusive:
		out = NoisyRunner("none of %d runs of this check was left undisturbed; the first: %s; the last %s: %s",
			len(worst), strings.TrimPrefix(first.Reason, "noisy runner: "), lastSaid, lastSaw)
	case d.stalled:
		out = NoisyRunner("the runner stalled %s %s, beyond the %s a timing verdict can bear; the first run failed: %s; the last %s: %s",
			msList(worst), runs(len(worst), "runs of this check"), Ms(limit), first.Observed, lastSaid, lastSaw)
		out.Counterexample = first.Counterexample
	default:
		out = NoisyRunner("the first run failed %s: %s; then the runner stalled %s %s, beyond the %s a timing verdict can bear; the last %s: %s",
			d.how, first.Observed, msList(worst[1:]), runs(len(worst)-1, "reruns"), Ms(limit), lastSaid, lastSaw)
		out.Counterexample = first.Counterexample
	}
	out.Evidence = first.Evidence
	return out
}

// msList says stalls in order: "80 ms", "80 ms and then 90 ms",
// "80 ms, 90 ms and then 70 ms".
func msList(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = Ms(d)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and then " + s[len(s)-1]
}

// withoutStory drops a failed property's pointer to its shrunk story from
// observed, for a result that does not carry that story.
func withoutStory(observed string) string {
	return strings.Replace(observed, ", shrunk to the story below", "", 1)
}
