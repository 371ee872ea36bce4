package certify

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/reports"
)

// A lane is one copy of the target behind proxies and a journal of its own,
// running one check at a time. Copies share nothing resilcheck can see (a
// breaker opened, a quota spent, a key stored), so a check on one lane
// meets the target as it would alone, and the run takes about the longest
// lane. Every copy's proxies also record into one run journal, in the order
// exchanges finish, with IDs that name the copy: the report keeps it, and
// the checks that judge the whole run's traffic (Check.RunWide) run last, once
// every other check is done, reading it.

// copies is how many copies of the target the run asks for: Config.Lanes,
// else the spec's concurrency (0 or 1 meaning one).
func (cfg Config) copies() int {
	if cfg.Lanes != 0 {
		return cfg.Lanes
	}
	return cfg.Target.Concurrency
}

// exploreCopies is the most copies an exploring check drives at once, a
// worker on each: five drew DL-03p 4.2–4.5 times the cases of one in the
// same time where four drew 3.2–3.9 times (a property whose cases are
// CPU-bound gains less on 2 cores).
const exploreCopies = 5

// undeclaredTakes is how long a check that declares no duration
// (Check.Takes) is expected to take when lanes are handed out: the
// brief checks' typical second or less.
const undeclaredTakes = time.Second

// lanes is how many copies the run starts: the ones it asks for, at least
// one and never more than the checks can use at once (gang each).
func (cfg Config) lanes(checks []check.Check) int {
	use := 0
	for _, c := range checks {
		use += gang(c, cfg.copies())
	}
	return max(1, min(cfg.copies(), use))
}

// gang is how many copies check c runs on in a run asking for copies: an
// exploring check half of them, within [1, exploreCopies], its workers side
// by side, so two properties explore at once (three from 15 copies); any
// other check one. It
// depends on the copies asked for, not those started, so a replay narrowed
// to one property gives it as many workers.
func gang(c check.Check, copies int) int {
	if c.Explores && !c.RunWide {
		return max(1, min(exploreCopies, copies/2))
	}
	return 1
}

// checkLanes refuses copies the target cannot take (targets.CopyProblem).
func (cfg Config) checkLanes() error {
	if why := cfg.Target.CopyProblem(cfg.copies()); why != "" {
		return fmt.Errorf("%w: %d copies of the target: %s", ErrConfig, cfg.copies(), why)
	}
	return nil
}

// laneJournals makes one journal per lane and, with several, the run
// journal every copy's proxies mirror into; all start at start, so the
// offsets in every journal share one origin. run is nil for one lane.
func laneJournals(lanes int, start time.Time) (js []*faults.Journal, run *faults.Journal) {
	clock := faults.WithJournalClock(startClock{start})
	js = make([]*faults.Journal, lanes)
	for i := range js {
		js[i] = faults.NewJournal(faults.WithCapacity(1<<16), clock)
	}
	if lanes > 1 {
		run = faults.NewJournal(faults.WithCapacity(lanes<<16), clock)
	}
	return js, run
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

// runLanes runs checks on the lanes' harnesses, each check (longest first)
// once the lanes it needs in a run asking for copies are free (gang), or
// earlier on lanes a check waiting for its gang leaves idle (startable),
// then the run-wide checks, each on a free lane's copy with the run journal
// as its journal. It
// returns the results in the checks' order; a check that did not run (the
// run was interrupted) has ran false, a run-wide one lane -1. progress is
// told as check.Run tells it, one event at a time.
func runLanes(ctx context.Context, lanes []*check.Harness, copies int, run *faults.Journal, checks []check.Check, progress check.Progress) []laneResult {
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
	var laned, wide []int
	for _, i := range longestFirst(checks) {
		if checks[i].RunWide {
			wide = append(wide, i)
		} else {
			laned = append(laned, i)
		}
	}
	// Checks start in order, each once the lanes it needs are free, and
	// a later one ahead of a check still waiting for lanes where, as far
	// as the checks' declared durations tell, it delays it by nothing
	// (startable); the longest, which come first, keep the others' lanes
	// busy meanwhile.
	need := func(i int) int { return min(gang(checks[i], copies), len(lanes)) }
	takes := func(i int) time.Duration { return cmp.Or(checks[i].Takes, undeclaredTakes) }
	free := make([]int, len(lanes))
	for l := range free {
		free[l] = l
	}
	holds := map[int]hold{}
	held := map[int][]int{}
	done := make(chan int, len(laned))
	var wg sync.WaitGroup
	pending := laned
	for len(pending) > 0 && ctx.Err() == nil {
		picks := startable(time.Now(), pending, need, takes, len(free), slices.Collect(maps.Values(holds)))
		for _, k := range picks {
			i := pending[k]
			got := slices.Clone(free[:need(i)])
			free = free[len(got):]
			held[i], holds[i] = got, hold{lanes: len(got), until: time.Now().Add(takes(i))}
			h := lanes[got[0]]
			if len(got) > 1 {
				lent := *h
				for _, l := range got[1:] {
					lent.Beside = append(lent.Beside, lanes[l])
				}
				h = &lent
			}
			wg.Go(func() {
				defer func() { done <- i }()
				if rcs := check.Run(ctx, h, checks[i:i+1], progress); len(rcs) == 1 {
					out[i] = laneResult{check: rcs[0], lane: got[0], ran: true}
				}
			})
		}
		for n, k := range picks {
			pending = slices.Delete(pending, k-n, k-n+1)
		}
		if len(pending) == 0 {
			break
		}
		select {
		case i := <-done:
			free = append(free, held[i]...)
			delete(held, i)
			delete(holds, i)
		case <-ctx.Done():
		}
	}
	wg.Wait()
	// The run-wide checks read the run journal, which no longer changes but
	// for their own samples (each on a tenant of its own), so they run side
	// by side too, each on a copy of its own: one after another they took
	// 2.5 s of a 20 s run.
	idle := make(chan int, len(lanes))
	for l := range lanes {
		idle <- l
	}
	for _, i := range slices.Sorted(slices.Values(wide)) {
		var l int
		select {
		case l = <-idle:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		whole := *lanes[l]
		whole.Journal = run
		wg.Go(func() {
			defer func() { idle <- l }()
			if rcs := check.Run(ctx, &whole, checks[i:i+1], progress); len(rcs) == 1 {
				out[i] = laneResult{check: rcs[0], lane: -1, ran: true}
			}
		})
	}
	wg.Wait()
	return out
}

// longestFirst orders the checks' indices for the lanes to take: the
// properties, which take several lanes each, then the others; within each
// group the longest declared first (Check.Takes), then the timed checks,
// then the run's order. The longest checks starting first keep the last
// lane from finishing long after the others, and the properties starting
// before the rest keep a property from waiting for lanes that brief checks
// hold one at a time.
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
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := checks[a], checks[b]
		return cmp.Or(
			cmp.Compare(min(rank(x), 1), min(rank(y), 1)),
			cmp.Compare(y.Takes, x.Takes),
			cmp.Compare(rank(x), rank(y)))
	})
	return order
}

// renumberEvidence points the evidence of the checks that ran on a lane
// (lanes[i] for rep.Checks[i], -1 for the run journal itself; the lane's
// sequence numbers name an exchange whose Entry is unset) at the same
// exchanges in the run journal, which the report keeps; an exchange the
// run journal no longer holds (its ring dropped it) is left out.
func renumberEvidence(journals []*faults.Journal, run *faults.Journal, rep *reports.Report, lanes []int) {
	inRun := map[string]uint64{}
	for _, e := range run.Snapshot() {
		inRun[e.ID] = e.Seq
	}
	// A lane's sequence numbers are read only for evidence a suite turned
	// into exchanges itself (Suite.Evidence), without Entry.
	ids := make([]map[uint64]string, len(journals))
	idsOf := func(l int) map[uint64]string {
		if ids[l] == nil {
			ids[l] = map[uint64]string{}
			for _, e := range journals[l].Snapshot() {
				ids[l][e.Seq] = e.ID
			}
		}
		return ids[l]
	}
	for i := range rep.Checks {
		l := lanes[i]
		if l < 0 {
			continue
		}
		c := &rep.Checks[i]
		kept := c.Evidence[:0]
		for _, x := range c.Evidence {
			// An exploring check's evidence may come from a copy it was
			// lent: the entry's own ID names it.
			id := x.Entry
			if id == "" {
				id = idsOf(l)[x.ID]
			}
			if seq, ok := inRun[id]; ok {
				x.ID = seq
				kept = append(kept, x)
			}
		}
		c.Evidence = kept
	}
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
