package properties

import (
	"slices"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestExploreEach_counts: each worker runs its own cases from its own seed,
// worker 0 exactly Explore's, and the result counts them all.
func TestExploreEach_counts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	draws := make([][]int, 4)
	props := make([]func(*rapid.T) bool, len(draws))
	for w := range props {
		props[w] = func(rt *rapid.T) bool {
			n := rapid.IntRange(0, 1<<20).Draw(rt, "n")
			mu.Lock()
			draws[w] = append(draws[w], n)
			mu.Unlock()
			return n%2 == 0
		}
	}
	res := ExploreEach("p", Config{Seed: 5, Checks: 6}, props)
	if res.Failed || res.Cases != 24 || res.Workers != 4 {
		t.Fatalf("ExploreEach = failed %v (%s), %d cases, %d workers; want 24 passing cases of 4 workers", res.Failed, res.Message, res.Cases, res.Workers)
	}
	var alone []int
	Explore("p", Config{Seed: 5, Checks: 6}, func(rt *rapid.T) bool {
		alone = append(alone, rapid.IntRange(0, 1<<20).Draw(rt, "n"))
		return true
	})
	if !slices.Equal(draws[0], alone) {
		t.Errorf("worker 0 drew %v, Explore with the same seed %v", draws[0], alone)
	}
	if slices.Equal(draws[1], draws[0]) || slices.Equal(draws[2], draws[1]) {
		t.Errorf("workers drew the same cases: %v", draws)
	}
	even := 0
	for _, ds := range draws {
		for _, n := range ds {
			if n%2 == 0 {
				even++
			}
		}
	}
	if res.Meaningful != even {
		t.Errorf("%d meaningful, want %d (every worker's)", res.Meaningful, even)
	}
}

// TestExploreEach_lowestFailure: the result is the lowest-numbered failing
// worker's, with its case number, and a replay by count reaches it again
// with the same story while one case fewer passes.
func TestExploreEach_lowestFailure(t *testing.T) {
	t.Parallel()
	props := func() []func(*rapid.T) bool {
		ps := make([]func(*rapid.T) bool, 3)
		for w := range ps {
			ps[w] = func(rt *rapid.T) bool {
				n := rapid.IntRange(0, 1000).Draw(rt, "n")
				if w > 0 && n%5 == 2 {
					rt.Fatalf("worker %d drew n %% 5 == 2", w)
				}
				return true
			}
		}
		return ps
	}
	found := ExploreEach("rare", Config{Seed: 9, Checks: 40}, props())
	if !found.Failed || found.Worker != 1 || found.FailedCase == 0 || found.Seed != WorkerSeed(9, 1) {
		t.Fatalf("ExploreEach = failed %v by worker %d at case %d, seed %d; want worker 1's failure, seed %d", found.Failed, found.Worker, found.FailedCase, found.Seed, WorkerSeed(9, 1))
	}
	replay := ExploreEach("rare", Config{Seed: 9, Checks: found.FailedCase}, props())
	if !replay.Failed || replay.Worker != 1 || replay.FailedCase != found.FailedCase || !slices.Equal(replay.Story, found.Story) {
		t.Errorf("replay = failed %v by worker %d at case %d, story %q; want worker 1 at case %d, story %q", replay.Failed, replay.Worker, replay.FailedCase, replay.Story, found.FailedCase, found.Story)
	}
	if short := ExploreEach("rare", Config{Seed: 9, Checks: found.FailedCase - 1}, props()); short.Failed && short.Worker == 1 {
		t.Errorf("%d cases failed worker 1 at case %d; its failure is case %d", found.FailedCase-1, short.FailedCase, found.FailedCase)
	}
}

// TestExploreEach_inconclusive: MinCases holds over all workers' cases.
func TestExploreEach_inconclusive(t *testing.T) {
	t.Parallel()
	props := make([]func(*rapid.T) bool, 2)
	for w := range props {
		props[w] = func(rt *rapid.T) bool { _ = rapid.IntRange(0, 9).Draw(rt, "n"); return w == 0 }
	}
	if res := ExploreEach("p", Config{Seed: 2, Checks: 3, MinCases: 3}, props); res.Failed || res.Inconclusive || res.Meaningful != 3 {
		t.Errorf("3 meaningful of 6: failed %v, inconclusive %v, meaningful %d; want a pass", res.Failed, res.Inconclusive, res.Meaningful)
	}
	if res := ExploreEach("p", Config{Seed: 2, Checks: 3, MinCases: 4}, props); !res.Inconclusive {
		t.Errorf("3 meaningful with MinCases 4: inconclusive %v, want true", res.Inconclusive)
	}
}

func TestWorkerSeed(t *testing.T) {
	t.Parallel()
	if WorkerSeed(7, 0) != 7 || WorkerSeed(0, 0) != 1 || WorkerSeed(7, 1) == WorkerSeed(7, 2) {
		t.Errorf("WorkerSeed: %d %d %d %d", WorkerSeed(7, 0), WorkerSeed(0, 0), WorkerSeed(7, 1), WorkerSeed(7, 2))
	}
}

// TestBudget_spent: a run alone goes on until its budget is over; a worker
// side by side stops before a case the mean so far says would end past
// it; a floor of cases is drawn whatever the time.
func TestBudget_spent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		took       time.Duration // of a 1 s budget
		cases      int
		sideBySide bool
		floor      int
		want       bool
	}{
		{"alone, mean would overrun", 600 * time.Millisecond, 1, false, 0, false},
		{"alone, over", 1100 * time.Millisecond, 5, false, 0, true},
		{"side by side, mean would overrun", 600 * time.Millisecond, 1, true, 0, true},
		{"side by side, mean fits", 600 * time.Millisecond, 3, true, 0, false},
		{"side by side, first case", 0, 0, true, 0, false},
		{"floor not reached", 1100 * time.Millisecond, 1, true, 2, false},
		{"floor reached", 1100 * time.Millisecond, 2, true, 2, true},
	}
	for _, tt := range tests {
		b := &budget{cfg: Config{Budget: time.Second, Floor: tt.floor, sideBySide: tt.sideBySide}, start: time.Now().Add(-tt.took), cases: tt.cases}
		if got := b.spent(); got != tt.want {
			t.Errorf("%s: spent = %v, want %v", tt.name, got, tt.want)
		}
	}
}
