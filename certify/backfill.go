package certify

import (
	"slices"
	"time"
)

// A hold is a running check's lanes and when it is expected to give them
// back: its start plus its declared duration.
type hold struct {
	lanes int
	until time.Time
}

// startable picks which of the pending checks (in the order they are to
// start) take lanes now, with free lanes free and running holding the
// rest. The first starts whenever its gang fits. While it does not, it
// waits for running checks to give back enough (its reservation), and a
// later check that fits in the free lanes starts before it only if it is
// expected to end by the reservation or takes lanes the first will not
// need then (EASY backfilling: D. Lifka, "The ANL/IBM SP scheduling
// system", JSSPP 1995). So a property waiting for five copies does not
// hold back a long single-copy check two idle copies could run meanwhile,
// and nothing started early delays it by more than a misjudged duration.
// need and takes give a pending check's lanes and expected duration (a
// guess: a check that overruns it delays the first by as much); the picks
// are positions in pending.
func startable(now time.Time, pending []int, need func(int) int, takes func(int) time.Duration, free int, running []hold) []int {
	var picks []int
	held := slices.Clone(running)
	k := 0
	for ; k < len(pending); k++ {
		g := need(pending[k])
		if g > free {
			break
		}
		picks = append(picks, k)
		free -= g
		held = append(held, hold{lanes: g, until: now.Add(takes(pending[k]))})
	}
	if k == len(pending) || free == 0 {
		return picks
	}
	shadow, extra := reservation(now, held, free, need(pending[k]))
	for j := k + 1; j < len(pending) && free > 0; j++ {
		g := need(pending[j])
		if g > free {
			continue
		}
		switch {
		case !now.Add(takes(pending[j])).After(shadow):
		case g <= extra:
			extra -= g
		default:
			continue
		}
		picks = append(picks, j)
		free -= g
	}
	return picks
}

// reservation is when a check needing need lanes can start, free being
// free now and held given back as expected (one overdue is expected at
// once), and how many lanes it leaves spare then: every hold given back
// by that instant counts, so holds that end together (checks started at
// once with the same duration) give the same answer in any order.
func reservation(now time.Time, held []hold, free, need int) (at time.Time, spare int) {
	byEnd := slices.SortedFunc(slices.Values(held), func(a, b hold) int { return a.until.Compare(b.until) })
	avail := free
	for i, h := range byEnd {
		avail += h.lanes
		if avail < need {
			continue
		}
		for _, tie := range byEnd[i+1:] {
			if tie.until.After(h.until) {
				break
			}
			avail += tie.lanes
		}
		return later(h.until, now), avail - need
	}
	return now, 0 // never enough: the lanes are fewer than need (gang caps it below that)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
