package properties

import (
	"flag"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestRun_pass(t *testing.T) {
	res := Run("sum", Config{Seed: 7, Checks: 30}, func(t *rapid.T) {
		a := rapid.IntRange(0, 100).Draw(t, "a")
		if a+1 <= a {
			t.Fatalf("overflow")
		}
	})
	if res.Failed || res.Seed != 7 {
		t.Fatalf("Run = %+v; want a pass with seed 7", res)
	}
}

func TestRun_shrinksAndReplays(t *testing.T) {
	prop := func(t *rapid.T) {
		n := rapid.IntRange(0, 1000).Draw(t, "n")
		if n >= 10 {
			t.Fatalf("n is too large")
		}
	}
	first := Run("bound", Config{Seed: 42, Checks: 50}, prop)
	if !first.Failed || !strings.Contains(first.Message, "n is too large") {
		t.Fatalf("Run = %+v; want a failure naming the violation", first)
	}
	if !slices.ContainsFunc(first.Counterexample, func(l string) bool { return strings.Contains(l, "draw n: 10") }) {
		t.Errorf("counterexample %q not shrunk to n = 10", first.Counterexample)
	}
	again := Run("bound", Config{Seed: 42, Checks: 50}, prop)
	if !slices.Equal(again.Counterexample, first.Counterexample) {
		t.Errorf("same seed gave %q then %q", first.Counterexample, again.Counterexample)
	}
}

func TestRun_stateMachine(t *testing.T) {
	res := Run("machine", Config{Seed: 3, Checks: 10, Steps: 20}, func(t *rapid.T) {
		var stack []int
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) { stack = append(stack, rapid.Int().Draw(t, "v")) },
			"pop": func(t *rapid.T) {
				if len(stack) == 0 {
					t.Skip("empty")
				}
				stack = stack[:len(stack)-1]
			},
			"": func(t *rapid.T) {
				if len(stack) > 3 {
					t.Fatalf("stack deeper than 3")
				}
			},
		})
	})
	if !res.Failed || len(res.Counterexample) == 0 {
		t.Fatalf("Run = %+v; want a shrunk failing action sequence", res)
	}
}

func TestExplore_budget(t *testing.T) {
	res := Explore("slow", Config{Seed: 5, Budget: 200 * time.Millisecond, MinCases: 3}, func(t *rapid.T) bool {
		n := rapid.IntRange(0, 9).Draw(t, "n")
		time.Sleep(50 * time.Millisecond)
		return n%2 == 0
	})
	switch {
	case res.Failed:
		t.Fatalf("Explore = %+v; want a pass", res)
	case res.Cases < 3 || res.Cases > 6:
		t.Errorf("Cases = %d; want the ~4 cases of 50 ms a 200 ms budget holds", res.Cases)
	case res.Meaningful > res.Cases:
		t.Errorf("Meaningful = %d of %d cases", res.Meaningful, res.Cases)
	case res.Inconclusive != (res.Meaningful < 3):
		t.Errorf("Inconclusive = %v with %d meaningful cases, MinCases 3", res.Inconclusive, res.Meaningful)
	}
}

func TestExplore_inconclusive(t *testing.T) {
	res := Explore("vacuous", Config{Seed: 5, Checks: 10, MinCases: 2}, func(t *rapid.T) bool { return false })
	if res.Failed || !res.Inconclusive || res.Cases != 10 || res.Meaningful != 0 {
		t.Fatalf("Explore = %+v; want 10 cases, none meaningful, inconclusive", res)
	}
}

// A failure found just before the budget runs out is still shrunk in full:
// the shrinker's runs are not cut.
func TestExplore_storyAfterBudget(t *testing.T) {
	var runs int
	prop := func(t *rapid.T) bool {
		n := rapid.IntRange(0, 1000).Draw(t, "n")
		t.Logf("sent %d requests", n)
		if runs++; runs < 30 {
			time.Sleep(5 * time.Millisecond) // exploring is slow; shrinking need not be
		}
		if n >= 10 {
			t.Fatalf("%d requests overflowed the queue", n)
		}
		return true
	}
	first := Explore("story", Config{Seed: 9, Budget: 100 * time.Millisecond}, prop)
	want := []string{"sent 10 requests", "10 requests overflowed the queue"}
	if !first.Failed || !slices.Equal(first.Story, want) {
		t.Fatalf("Story = %q (failed %v); want %q", first.Story, first.Failed, want)
	}
	runs = 0
	again := Explore("story", Config{Seed: 9, Budget: 100 * time.Millisecond}, prop)
	if !slices.Equal(again.Story, first.Story) {
		t.Errorf("same seed told %q then %q", first.Story, again.Story)
	}
}

// A slow property is shrunk for ShrinkTime, not for as long as rapid's
// shrinker would go on replaying it, and still tells its story.
func TestExplore_shrinkTime(t *testing.T) {
	start := time.Now()
	res := Explore("slow shrink", Config{Seed: 3, Budget: 200 * time.Millisecond, ShrinkTime: 100 * time.Millisecond}, func(t *rapid.T) bool {
		n := rapid.IntRange(0, 1_000_000).Draw(t, "n")
		time.Sleep(50 * time.Millisecond)
		if n >= 10 {
			t.Fatalf("n = %d is too large", n)
		}
		return true
	})
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %s; want about the budget, the shrink time and two replays", took)
	}
	if !res.Failed || len(res.Story) == 0 || !strings.Contains(res.Story[len(res.Story)-1], "too large") {
		t.Errorf("Explore = %+v; want a failure with its story", res.Logs)
	}
}

// A case that failed while shrinking but not in rapid's last replay, the
// one that tells it (a failure on timing), says so at the end of its
// story instead of ending as if it had passed.
func TestExplore_storyNotRetold(t *testing.T) {
	var calls, last int
	prop := func(t *rapid.T) bool {
		calls++
		t.Logf("sent %d requests", rapid.IntRange(0, 1000).Draw(t, "n"))
		if last == 0 || calls < last {
			t.Fatalf("the queue overflowed")
		}
		return true
	}
	cfg := Config{Seed: 4, Budget: 100 * time.Millisecond}
	if res := Explore("retold", cfg, prop); !res.Failed || res.Untold || res.Story[len(res.Story)-1] == notRetold {
		t.Fatalf("a failure that replays: Untold %v, Story = %q", res.Untold, res.Story)
	}
	last, calls = calls, 0 // the same seed again, and this time the telling passes
	res := Explore("retold", cfg, prop)
	if !res.Failed || !res.Untold || res.Story[len(res.Story)-1] != notRetold || !strings.Contains(res.Message, "the queue overflowed") {
		t.Errorf("Explore = %q, Untold %v, story %q; want the failure, untold, and a story saying it did not fail again", res.Message, res.Untold, res.Story)
	}
}

// A failure rapid cannot reproduce at all (a race) is still a failure, and
// its message keeps what failed.
func TestExplore_flakyKeepsFailure(t *testing.T) {
	calls := 0
	res := Explore("flaky", Config{Seed: 5, Budget: 100 * time.Millisecond}, func(t *rapid.T) bool {
		rapid.IntRange(0, 10).Draw(t, "n")
		if calls++; calls == 1 {
			t.Fatalf("the first request was answered twice")
		}
		return true
	})
	if !res.Failed || !strings.Contains(res.Message, "the first request was answered twice") || !strings.Contains(res.Message, "did not fail again") {
		t.Errorf("Explore = %q (failed %v); want the failure, said not to reproduce", res.Message, res.Failed)
	}
}

// A failure found under a time budget is reached again by count: the
// replay runs exactly FailedCase cases from the same seed, with no budget
// to cut it short on a slower run, and one case fewer passes.
func TestExplore_replayByCount(t *testing.T) {
	prop := func(t *rapid.T) bool {
		if n := rapid.IntRange(0, 1000).Draw(t, "n"); n%7 == 3 {
			t.Fatalf("n %% 7 == 3")
		}
		return true
	}
	found := Explore("rare", Config{Seed: 11, Budget: 10 * time.Second}, prop)
	if !found.Failed || found.FailedCase < 2 || found.FailedCase != found.Cases {
		t.Fatalf("Explore = failed %v at case %d of %d; want a failure after a few passing cases", found.Failed, found.FailedCase, found.Cases)
	}
	replay := Explore("rare", Config{Seed: 11, Checks: found.FailedCase}, prop)
	if !replay.Failed || replay.FailedCase != found.FailedCase || !slices.Equal(replay.Story, found.Story) {
		t.Errorf("replay of %d cases = failed %v at case %d, story %q; want the story %q", found.FailedCase, replay.Failed, replay.FailedCase, replay.Story, found.Story)
	}
	if short := Explore("rare", Config{Seed: 11, Checks: found.FailedCase - 1}, prop); short.Failed {
		t.Errorf("%d cases failed at case %d; the failure is case %d", found.FailedCase-1, short.FailedCase, found.FailedCase)
	}
}

// Cases that all skip (a target that could not be driven, a case the
// harness could not set up) leave rapid short of valid cases, which it
// calls a failure; no case failed, so the run is inconclusive.
func TestExplore_allSkipped(t *testing.T) {
	res := Explore("skips", Config{Seed: 3, Checks: 1}, func(t *rapid.T) bool {
		_ = rapid.IntRange(0, 9).Draw(t, "n")
		t.Skip("the target did not heal")
		return true
	})
	if res.Failed || !res.Inconclusive || res.FailedCase != 0 || !strings.HasPrefix(res.Message, "only generated 0 valid tests") {
		t.Errorf("Explore = failed %v, inconclusive %v, case %d, message %q; want inconclusive with rapid's count", res.Failed, res.Inconclusive, res.FailedCase, res.Message)
	}
}

// TestExplore_sideBySide: two runs of different properties overlap: the
// first one's case waits for the second's to begin, which a process-wide
// lock held for a whole run would never let happen. Each still draws the
// cases its own seed gives.
func TestExplore_sideBySide(t *testing.T) {
	t.Parallel()
	second := make(chan struct{})
	var once sync.Once
	draws := func(seed uint64, wait bool) (Result, []int) {
		var got []int
		res := Explore("p", Config{Seed: seed, Checks: 3}, func(rt *rapid.T) bool {
			got = append(got, rapid.IntRange(0, 1<<20).Draw(rt, "n"))
			if wait {
				select {
				case <-second:
				case <-time.After(30 * time.Second):
					rt.Fatalf("the second run never began while the first ran")
				}
			}
			return true
		})
		return res, got
	}
	var first Result
	var firstDraws []int
	done := make(chan struct{})
	go func() {
		defer close(done)
		first, firstDraws = draws(7, true)
	}()
	res, secondDraws := func() (Result, []int) {
		var got []int
		res := Explore("q", Config{Seed: 8, Checks: 3}, func(rt *rapid.T) bool {
			once.Do(func() { close(second) })
			got = append(got, rapid.IntRange(0, 1<<20).Draw(rt, "n"))
			return true
		})
		return res, got
	}()
	<-done
	if first.Failed || res.Failed {
		t.Fatalf("runs failed: %q, %q", first.Message, res.Message)
	}
	_, alone := draws(7, false)
	if !slices.Equal(firstDraws, alone) || len(secondDraws) != 3 {
		t.Errorf("seed 7 drew %v beside another run, %v alone; the other drew %v", firstDraws, alone, secondDraws)
	}
}

// TestExplore_ownSteps: a state machine with steps of its own gets them,
// and every later run the shared steps again.
func TestExplore_ownSteps(t *testing.T) {
	t.Parallel()
	var seen int
	res := Run("own steps", Config{Seed: 3, Checks: 1, Steps: 3}, func(rt *rapid.T) {
		seen, _ = strconv.Atoi(flag.Lookup("rapid.steps").Value.String())
	})
	if res.Failed || seen != shortSteps(3) {
		t.Fatalf("a run with Steps 3 saw rapid.steps %d (failed %v: %s); want %d", seen, res.Failed, res.Message, shortSteps(3))
	}
	Run("shared steps", Config{Seed: 3, Checks: 1}, func(rt *rapid.T) {
		seen, _ = strconv.Atoi(flag.Lookup("rapid.steps").Value.String())
	})
	if seen != shortSteps(processSteps) {
		t.Errorf("a later run saw rapid.steps %d; want %d", seen, shortSteps(processSteps))
	}
}
