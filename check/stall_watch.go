package check

import (
	"cmp"
	"context"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// stallEvery is how often a stall watch wakes: a hundred times a second,
// a negligible load.
const stallEvery = 10 * time.Millisecond

// stalls is what a stall watch saw: its latest wake-up's lateness, and
// all its wake-ups' lateness summed, which bounds how much the runner can
// have delayed anything timed meanwhile; and each late wake-up, so the sum
// over one stretch of time can be taken.
type stalls struct {
	worst, total time.Duration
	late         []stall
	// every is how often the watch woke (stallEvery when zero): it saw a
	// stall as at least its length less this.
	every time.Duration
}

// stall is one wake-up of a stall watch that came late: when it woke, and
// by how much.
type stall struct {
	at   time.Time
	late time.Duration
}

// maxStalls bounds the late wake-ups a watch keeps: about 100 s of them,
// as a timer wakes a little late nearly every time; past it, Worst and
// within answer for the whole watch. Checks and client runs watch for
// well under that.
const maxStalls = 10000

// starved says the runner fell so far behind over took that what it left
// undone then (a heal that gave up, a check left inconclusive) says
// nothing of the target: one wake-up late by starvedAtOnce, or its
// wake-ups late in all by as much and by a fifth of the time: a runner
// that lost that much to the machine cannot tell a slow target from
// itself.
func (s stalls) starved(took time.Duration) bool {
	return s.worst >= starvedAtOnce || s.total >= max(starvedAtOnce, took/5)
}

// starvedAtOnce is the runner's lateness at once past which it is
// starved: ten times the 50 ms a timing verdict bears by default, and a
// sixth of the 3 s a heal waits for each answer.
const starvedAtOnce = 500 * time.Millisecond

// within sums the lateness of the wake-ups from..to (each counted with
// the stretch it delayed, which ends at its wake-up), or the whole watch's
// when it kept too few to tell.
func (s stalls) within(from, to time.Time) time.Duration {
	if len(s.late) >= maxStalls || from.IsZero() || to.Before(from) {
		return s.total
	}
	var sum time.Duration
	for _, st := range s.late {
		if !st.at.Before(from) && !st.at.Add(-st.late).After(to) {
			sum += st.late
		}
	}
	return sum
}

// watchStalls measures how late each of its wake-ups comes until the
// returned function is called, which returns the latest and their sum. The
// noise measured before the checks misses a runner that gets busy later (a
// neighbour's load, CPU throttling, a parallel job), and one stall during
// a timed check can push a gap past its bound by itself. Every wait is
// timed, so a stall is seen whenever it falls, as at least its length
// less stallEvery.
func watchStalls() (stop func() stalls) { return watchStallsEvery(stallEvery) }

// startStallWatch starts the harness's stall watch: watchStalls, or what a
// test put in its place (Harness.stallWatch).
func (h *Harness) startStallWatch() (stop func() stalls) {
	if h.stallWatch != nil {
		return h.stallWatch()
	}
	return watchStalls()
}

// watchStallsEvery is watchStalls waking every every. A watch finer than
// stallEvery keeps only the wake-ups late by half its period or more,
// which its judges cannot resolve anyway, so as many of them fit in
// maxStalls.
func watchStallsEvery(every time.Duration) (stop func() stalls) {
	floor := time.Duration(0)
	if every < stallEvery {
		floor = every / 2
	}
	quit, done := make(chan struct{}), make(chan stalls, 1)
	go func() {
		seen := stalls{every: every}
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			start := time.Now()
			select {
			case <-quit:
				done <- seen
				return
			case <-t.C:
			}
			now := time.Now()
			late := max(now.Sub(start)-every, 0)
			seen.worst = max(seen.worst, late)
			seen.total += late
			if late > floor && len(seen.late) < maxStalls {
				seen.late = append(seen.late, stall{at: now, late: late})
			}
			t.Reset(every)
		}
	}()
	return func() stalls {
		close(quit)
		return <-done
	}
}

// stallLimit is the longest stall the timing verdict res of check c can
// bear. A failure with a measured margin is weighed against the stalls
// while its evidence was exchanged (stalledFailure), so any stall beyond
// the least tolerance of the run's suites (and the harness's) may count.
// Any other verdict rests on the check's own tolerance absorbing a shorter
// stall wherever it falls: its suite's Slack, else the harness's. A
// throttling failure judged within 500 ms (0 of 66 calls back) was
// doubted three times by 59–110 ms stalls under the one least limit.
func (h *Harness) stallLimit(c Check, res Result) time.Duration {
	if res.Status == reports.StatusFail && res.Margin > 0 && res.Margin != NotTimed {
		limit := h.Slack()
		for _, s := range h.Suites {
			if s.Slack != nil {
				limit = min(limit, s.Slack(h))
			}
		}
		return limit
	}
	for _, s := range h.Suites {
		if s.Name == c.Suite && s.Slack != nil {
			return s.Slack(h)
		}
	}
	return h.Slack()
}

// watched runs c once (see once); for a timed check it also returns the
// runner's stalls while it ran. Every check is watched for starvation: a
// verdict left inconclusive while the runner starved (stalls.starved) is a
// noisy runner's, whatever the check times.
func (h *Harness) watched(parent context.Context, c Check, id string) (res Result, seen stalls) {
	stop := h.startStallWatch()
	start := time.Now()
	defer func() { // also when the check panics
		s := stop()
		if took := time.Since(start); res.Status == reports.StatusInconclusive && !res.Noisy && !res.stuck && s.starved(took) {
			res = NoisyRunner("%s (the runner's wake-ups came up to %s late at once, %s in all, over the check's %s)", res.Reason, Ms(s.worst), Ms(s.total), Ms(took))
		}
		if c.Timed {
			seen = s
		}
	}()
	return h.once(parent, c, id), stalls{}
}

// stalledFailure says res failed while the runner stalled beyond limit by
// more than the failure could bear: a failure later than its bound by more
// than every stall together was late by the target's doing, whatever the
// runner did meanwhile (Result.Margin). The stalls counted are those while
// its evidence was exchanged, where it has any: a stall elsewhere in a
// long check delayed nothing it judged.
func stalledFailure(res Result, seen stalls, limit time.Duration) bool {
	if res.Status != reports.StatusFail || seen.worst <= limit {
		return false
	}
	from, to := judgedSpan(res)
	return res.Margin <= seen.within(from, to)
}

// slowedFailure says res failed late by a measured margin no larger than
// the runner's wake-ups came late in all while its evidence was exchanged:
// no single stall need pass a limit, since on a busy runner many short
// delays (tens of milliseconds over two seconds) add up to one, and the
// front proxy that timed the exchange shares them. A rerun decides.
func slowedFailure(res Result, seen stalls) bool {
	if res.Status != reports.StatusFail || res.Margin <= 0 || res.Margin == NotTimed {
		return false
	}
	from, to := judgedSpan(res)
	return res.Margin <= seen.within(from, to)
}

// judgedSpan is when res's evidence was exchanged, widened to the wait it
// measured (Result.Waited).
func judgedSpan(res Result) (from, to time.Time) {
	from, to = evidenceSpan(res.Evidence)
	w := res.Waited
	if w.From.IsZero() {
		return from, to
	}
	if from.IsZero() || w.From.Before(from) {
		from = w.From
	}
	if w.To.After(to) {
		to = w.To
	}
	return from, to
}

// evidenceSpan is when the exchanges ev began and ended; zero times when
// there are none.
func evidenceSpan(ev []faults.Entry) (from, to time.Time) {
	for _, e := range ev {
		if from.IsZero() || e.Received.Before(from) {
			from = e.Received
		}
		end := e.Finished
		if end.IsZero() {
			end = e.Received
		}
		if end.After(to) {
			to = end
		}
	}
	return from, to
}

// stalledPass says res passed by a margin a stall of the runner may have
// made (Result.Quiet), and the runner stalled longer than that.
func stalledPass(res Result, seen stalls) bool {
	return res.Status == reports.StatusPass && res.Quiet > 0 && seen.worst > res.Quiet
}

// Stalls is what a stall watch started by WatchStalls saw: each wake-up
// that came late, and when.
type Stalls struct{ s stalls }

// WatchStalls starts a stall watch for a judge that times something the
// runner shares the machine with (a client's processes, say); stop ends it
// and returns what it saw.
func WatchStalls() (stop func() Stalls) { return WatchStallsEvery(stallEvery) }

// WatchStallsEvery is WatchStalls waking every every (at least a
// millisecond): a watch sees a stall as at least its length less its
// period (Stalls.Resolution), so a judge that must rule out stalls of a
// few milliseconds watches more finely, at a thousand wake-ups a second.
func WatchStallsEvery(every time.Duration) (stop func() Stalls) {
	st := watchStallsEvery(max(every, time.Millisecond))
	return func() Stalls { return Stalls{st()} }
}

// Resolution is how much longer than Worst a stall may have been: the
// watch's period, which a stall can begin just after a wake-up within.
func (s Stalls) Resolution() time.Duration { return cmp.Or(s.s.every, stallEvery) }

// Within is how late the wake-ups between from and to came in all: how
// much many short delays may have added up to meanwhile. A watch that
// kept maxStalls late wake-ups answers its sum over all.
func (s Stalls) Within(from, to time.Time) time.Duration { return s.s.within(from, to) }

// Worst is the latest any wake-up came between from and to: how much the
// runner was delayed at once meanwhile. A zero Stalls saw none; a watch that kept maxStalls late
// wake-ups answers its worst of all.
func (s Stalls) Worst(from, to time.Time) time.Duration {
	var worst time.Duration
	for _, st := range s.s.late {
		if !st.at.Before(from) && !st.at.Add(-st.late).After(to) {
			worst = max(worst, st.late)
		}
	}
	if len(s.s.late) >= maxStalls {
		worst = max(worst, s.s.worst)
	}
	return worst
}
