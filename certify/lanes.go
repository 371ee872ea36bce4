package certify

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// A lane is one copy of the target behind proxies and a journal of its own,
// running one check at a time. Copies share nothing resilcheck can see (a
// breaker opened, a quota spent, a key stored), so a check on one lane
// meets the target exactly as it would alone: the verdicts of a run with
// lanes are those of a serial run, and the run takes about the longest lane.

// lanes is how many copies of the target the run starts: Config.Lanes,
// else the spec's concurrency, else one; never more than there are checks.
func (cfg Config) lanes(checks int) int {
	n := cfg.Lanes
	if n <= 0 {
		n = cfg.Target.Concurrency
	}
	return max(1, min(n, checks))
}

// checkLanes refuses copies of a target resilcheck does not start, or whose
// dependency proxy listens on a fixed address.
func (cfg Config) checkLanes() error {
	t := cfg.Target
	switch n := cfg.Lanes; {
	case n < 0:
		return fmt.Errorf("%w: %d copies of the target: want 0 (the spec's concurrency) or more", ErrConfig, n)
	case n > 1 && t.Kind != targets.KindProcess && t.Kind != targets.KindReference:
		return fmt.Errorf("%w: kind %s is one copy of the service: only kinds process and reference can be started %d times", ErrConfig, t.Kind, n)
	case n > 1:
		for _, d := range t.Dependencies {
			if d.Listen != "" && !strings.HasSuffix(d.Listen, ":0") {
				return fmt.Errorf("%w: dependency %s listens on %s, which cannot take %d copies' proxies: use port 0", ErrConfig, d.Name, d.Listen, n)
			}
		}
	}
	return nil
}

// laneJournals makes one journal per lane, all starting at start, so the
// offsets in every lane's evidence share one origin.
func laneJournals(lanes int, start time.Time) []*faults.Journal {
	js := make([]*faults.Journal, lanes)
	for i := range js {
		js[i] = faults.NewJournal(faults.WithCapacity(1<<16), faults.WithJournalClock(startClock{start}))
	}
	return js
}

// startClock stamps a journal's start; journals never sleep on it.
type startClock struct{ t time.Time }

func (c startClock) Now() time.Time { return c.t }
func (startClock) Sleep(ctx context.Context, d time.Duration) error {
	return faults.SystemClock().Sleep(ctx, d)
}

// laneResult is one check's report entry and the lane it ran on.
type laneResult struct {
	check reports.Check
	lane  int
	ran   bool
}

// runLanes runs checks on the lanes' harnesses, each lane taking the next
// check in order as it frees up, and returns the results in the checks'
// order. A check that did not run (the run was interrupted) has ran false.
// progress is told as check.Run tells it, one event at a time.
func runLanes(ctx context.Context, lanes []*check.Harness, checks []check.Check, progress check.Progress) []laneResult {
	out := make([]laneResult, len(checks))
	if progress != nil {
		var mu sync.Mutex
		inner := progress
		progress = func(c check.Check, done bool, res reports.Check) {
			mu.Lock()
			defer mu.Unlock()
			inner(c, done, res)
		}
	}
	if len(lanes) == 1 {
		for i, rc := range check.Run(ctx, lanes[0], checks, progress) {
			out[i] = laneResult{check: rc, ran: true}
		}
		return out
	}
	order := longestFirst(checks)
	var mu sync.Mutex
	next := 0
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || next == len(order) {
			return -1
		}
		next++
		return order[next-1]
	}
	var wg sync.WaitGroup
	for l, h := range lanes {
		wg.Go(func() {
			for i := take(); i >= 0; i = take() {
				if rcs := check.Run(ctx, h, checks[i:i+1], progress); len(rcs) == 1 {
					out[i] = laneResult{check: rcs[0], lane: l, ran: true}
				}
			}
		})
	}
	wg.Wait()
	return out
}

// longestFirst orders the checks' indices for the lanes to take: the
// properties, which explore for a time budget, then the timed checks, which
// wait out windows and deadlines, then the rest, each group in the run's
// order. The longest checks starting first keep the last lane from
// finishing long after the others.
func longestFirst(checks []check.Check) []int {
	rank := func(c check.Check) int {
		switch {
		case c.Explores:
			return 0
		case c.Timed:
			return 1
		}
		return 2
	}
	order := make([]int, len(checks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank(checks[a]), rank(checks[b])) })
	return order
}

// mergeLanes returns one journal holding every lane's entries in the order
// they were received, numbered anew, and renumbers the evidence of the
// report's checks to match, so the journal backs every report as a serial
// run's does.
// lanes[i] is the lane rep.Checks[i] ran on.
func mergeLanes(journals []*faults.Journal, rep *reports.Report, lanes []int) *faults.Journal {
	type laned struct {
		e    faults.Entry
		lane int
	}
	var all []laned
	for l, j := range journals {
		for _, e := range j.Snapshot() {
			all = append(all, laned{e, l})
		}
	}
	slices.SortStableFunc(all, func(a, b laned) int {
		return cmp.Or(a.e.Received.Compare(b.e.Received), cmp.Compare(a.lane, b.lane), cmp.Compare(a.e.Seq, b.e.Seq))
	})
	merged := faults.NewJournal(faults.WithCapacity(max(len(all), 1)), faults.WithJournalClock(startClock{journals[0].Start()}))
	renumber := make([]map[uint64]uint64, len(journals))
	for l := range renumber {
		renumber[l] = map[uint64]uint64{}
	}
	for _, x := range all {
		renumber[x.lane][x.e.Seq] = merged.Record(x.e).Seq
	}
	for i := range rep.Checks {
		c := &rep.Checks[i]
		lane := lanes[i]
		for k := range c.Evidence {
			c.Evidence[k].ID = renumber[lane][c.Evidence[k].ID]
		}
	}
	return merged
}

// laneLogs names each lane's logs after its copy of the target when there
// are several, so their files do not collide.
func laneLogs(lane, lanes int, logs []launch.Log) []launch.Log {
	if lanes == 1 {
		return logs
	}
	for i := range logs {
		logs[i].Name = fmt.Sprintf("copy-%d-%s", lane+1, logs[i].Name)
	}
	return logs
}
