package suites

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
			trouble := &harnessTrouble{}
			calls := 0
			r := properties.Explore("trouble", cfg, func(rt *rapid.T) bool {
				calls++
				n := rapid.IntRange(0, 9).Draw(rt, "n")
				if c.fails && n > 5 {
					rt.Fatalf("the target charged twice")
				}
				if calls%2 == 0 {
					trouble.skip(rt, "placing the script", errors.New("proxy closed"))
				}
				return true
			})
			got := exploration{want: "w", meaningful: "ran", trouble: trouble}.result(r, cfg, nil)
			if got.Status != c.want {
				t.Errorf("result = %s (%s%s); want %s", got.Status, got.Observed, got.Reason, c.want)
			}
		})
	}
}
