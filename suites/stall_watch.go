package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// stallEvery is how often a stall watch sleeps 1 ms and measures how late
// it woke: about a hundred samples a second, a negligible load.
const stallEvery = 10 * time.Millisecond

// watchStalls samples the runner's timer overshoot until the returned
// function is called, which returns the longest one seen. The noise
// measured before the checks misses a runner that gets busy later (a
// neighbour's load, a parallel job), and one stall during a timed check
// can push a gap past its bound by itself.
func watchStalls() (stop func() time.Duration) {
	quit, done := make(chan struct{}), make(chan time.Duration, 1)
	go func() {
		var worst time.Duration
		t := time.NewTicker(stallEvery)
		defer t.Stop()
		for {
			start := time.Now()
			time.Sleep(time.Millisecond)
			worst = max(worst, time.Since(start)-time.Millisecond)
			select {
			case <-quit:
				done <- worst
				return
			case <-t.C:
			}
		}
	}()
	return func() time.Duration {
		close(quit)
		return <-done
	}
}

// stallLimit is the longest stall a timed verdict bears: the tolerance,
// which absorbs a stall shorter than itself wherever it falls.
func (h *Harness) stallLimit() time.Duration { return h.tolerance() }

// watched runs c once (see once); for a timed check it also returns the
// longest stall of the runner while it ran.
func (h *Harness) watched(parent context.Context, c Check, id string) (Result, time.Duration) {
	if !timed(c) {
		return h.once(parent, c, id), 0
	}
	watch := h.stallWatch
	if watch == nil {
		watch = watchStalls
	}
	stop := watch()
	res := h.once(parent, c, id)
	return res, stop()
}

// rejudged is the verdict on a timed check that failed while the runner
// stalled beyond stallLimit. That failure is not trusted, so the check
// runs again, with draws of its own (fresh keys and tenants, which a
// target that stores keys needs): a pass stands, telling what the first
// run saw; a failure without a stall confirms the first run's, which is
// kept since the seed replays it; a failure under a stall again is
// inconclusive.
func (h *Harness) rejudged(parent context.Context, c Check, first Result, stall time.Duration) Result {
	res, again := h.watched(parent, c, c.ID+"/again")
	limit := h.stallLimit()
	switch {
	case res.Status == reports.StatusFail && again > limit:
		return inconclusive("noisy runner: %s failed twice while the runner stalled (%s, then %s), beyond the %s a timed verdict bears: %s",
			c.ID, raMs(stall), raMs(again), raMs(limit), first.Observed)
	case res.Status == reports.StatusFail:
		first.Observed += fmt.Sprintf(" (the runner stalled %s during this run, beyond the %s a timed verdict bears, so the check ran again and failed again without a stall: %s)",
			raMs(stall), raMs(limit), res.Observed)
		return first
	case res.Status == reports.StatusPass:
		res.Observed += fmt.Sprintf(" (on a second run: the first failed while the runner stalled %s, beyond the %s a timed verdict bears: %s)",
			raMs(stall), raMs(limit), first.Observed)
	default:
		res.Reason += fmt.Sprintf(" (on a second run: the first failed while the runner stalled %s: %s)", raMs(stall), first.Observed)
	}
	return res
}
