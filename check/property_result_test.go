package check

import (
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/resilcheck/resilcheck/properties"
	"github.com/resilcheck/resilcheck/reports"
)

// TestExploration_result_harnessTrouble: a case resilcheck could not set
// up (a fault rule its own proxy refused) is skipped, not failed, and the
// run ends inconclusive instead of blaming the target; a failure found in
// another case still fails.
func TestExploration_result_harnessTrouble(t *testing.T) {
	cfg := properties.Config{Seed: 1, Budget: 50 * time.Millisecond}
	for _, c := range []struct {
		name  string
		fails bool
		want  reports.Status
	}{
		{"skipped cases only", false, reports.StatusInconclusive},
		{"and a real failure", true, reports.StatusFail},
	} {
		t.Run(c.name, func(t *testing.T) {
			trouble := &Trouble{}
			calls := 0
			r := properties.Explore("trouble", cfg, func(rt *rapid.T) bool {
				calls++
				n := rapid.IntRange(0, 9).Draw(rt, "n")
				if c.fails && n > 5 {
					rt.Fatalf("the target charged twice")
				}
				if calls%2 == 0 {
					trouble.Skip(rt, "placing the script", errors.New("proxy closed"))
				}
				return true
			})
			got := Exploration{Want: "w", Meaningful: "ran", Trouble: trouble}.Result(r, cfg, nil)
			if got.Status != c.want {
				t.Errorf("result = %s (%s%s); want %s", got.Status, got.Observed, got.Reason, c.want)
			}
		})
	}
}

func TestHarness_exploring(t *testing.T) {
	base := properties.Config{Seed: 9, Checks: 8, ShrinkTime: time.Second}
	for _, c := range []struct {
		name   string
		h      Harness
		def    time.Duration
		checks int
		budget time.Duration
	}{
		{"default budget", Harness{}, 3 * time.Second, 0, 3 * time.Second},
		{"default count", Harness{}, 0, 8, 0},
		{"--explore", Harness{Explore: time.Minute}, 3 * time.Second, 0, time.Minute},
		{"--explore on a counted property", Harness{Explore: time.Minute}, 0, 0, time.Minute},
		{"--explore-cases", Harness{ExploreCases: 5}, 3 * time.Second, 5, 0},
		{"--explore-cases beats --explore", Harness{Explore: time.Minute, ExploreCases: 5}, 0, 5, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.h.Exploring(base, c.def)
			if got.Checks != c.checks || got.Budget != c.budget || got.Seed != base.Seed || got.ShrinkTime != base.ShrinkTime {
				t.Errorf("exploring = %+v; want Checks %d, Budget %s, the rest of %+v", got, c.checks, c.budget, base)
			}
		})
	}
}

// A property's failure replays by count, since a time budget may end
// before the failing case on a slower run; a run that already replays by
// count keeps its own line.
func TestHarness_toReport_failedCase(t *testing.T) {
	c := Check{ID: "RB-01p", Suite: "amplification"}
	failed := Result{Status: reports.StatusFail, FailedCase: 7}
	for _, tc := range []struct {
		name string
		h    Harness
		r    Result
		want string
	}{
		{"failed property", Harness{Reproduce: "resilcheck certify --reference --seed 3"}, failed,
			"resilcheck certify --reference --seed 3 --check RB-01p --explore-cases 7"},
		{"fixed check", Harness{Reproduce: "resilcheck certify --reference --seed 3"}, Result{Status: reports.StatusFail},
			"resilcheck certify --reference --seed 3 --check RB-01p"},
		{"already by count", Harness{Reproduce: "resilcheck certify --reference --seed 3 --explore-cases 7", ExploreCases: 7}, failed,
			"resilcheck certify --reference --seed 3 --explore-cases 7 --check RB-01p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.h.toReport(c, tc.r, 0).Reproduce; got != tc.want {
				t.Errorf("Reproduce = %q; want %q", got, tc.want)
			}
		})
	}
}

// TestHarness_Copy: a copy of the target keeps values of its own, and a
// struct copy of it (a lane lent to a property, the run journal's view)
// shares them, so a quota a lent lane's check spent stays in its book.
func TestHarness_Copy(t *testing.T) {
	t.Parallel()
	run := &Harness{}
	lane := run.Copy()
	lent := *lane
	type key struct{}
	v := lent.Shared(key{}, func() any { return new(int) })
	if lane.Shared(key{}, func() any { return new(int) }) != v {
		t.Error("a struct copy of a lane's harness keeps values of its own; want the lane's")
	}
	if run.Shared(key{}, func() any { return new(int) }) == v || run.Copy().Shared(key{}, func() any { return new(int) }) == v {
		t.Error("another copy of the target shares the lane's values")
	}
}
