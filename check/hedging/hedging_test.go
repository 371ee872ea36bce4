package hedging

import (
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

func TestBudgetLimit(t *testing.T) {
	for _, tc := range []struct {
		share float64
		n     int
		want  int
	}{
		{0.2, 16, 6},  // failsafe-go's budget at 0.2 allows 5 of 16 (internal/reference/payments)
		{0.1, 16, 5},  // the default: a library without a budget hedges all 16
		{0.05, 16, 5}, // failsafe-go always allows 3 in flight, whatever the share
		{0.25, 16, 7}, // h ≤ 0.25·(16+h): 5.33
		{0.5, 8, 10},  // a budget of half the copies lets every request hedge
		{1, 4, 401},   // share 1 is clamped to 0.99, not divided by zero
	} {
		if got := budgetLimit(tc.share, tc.n); got != tc.want {
			t.Errorf("budgetLimit(%v, %d) = %d; want %d", tc.share, tc.n, got, tc.want)
		}
	}
}

func TestConfig_hold(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		delay time.Duration
		want  time.Duration
	}{
		{Config{}, 0, 1200 * time.Millisecond},
		{Config{}, 300 * time.Millisecond, 1300 * time.Millisecond},
		{Config{}, time.Second, 4 * time.Second},
		{Config{Hold: 5 * time.Second}, 300 * time.Millisecond, 5 * time.Second},
	} {
		if got := tc.cfg.hold(tc.delay); got != tc.want {
			t.Errorf("%+v.hold(%s) = %s; want %s", tc.cfg, tc.delay, got, tc.want)
		}
	}
}

// TestSuite_needs: only HD-04 and HD-05 judge a target that declares no
// hedging; every check needs a dependency.
func TestSuite_needs(t *testing.T) {
	h := &check.Harness{}
	for _, c := range Suite(Config{}).Checks {
		needsDecl := false
		for _, n := range c.Needs {
			if n.Name == needHedging.Name {
				needsDecl = n.Unmet(h) != ""
			}
		}
		universal := c.ID == "HD-04" || c.ID == "HD-05"
		if needsDecl == universal {
			t.Errorf("%s: needs a declaration %v; want %v", c.ID, needsDecl, !universal)
		}
	}
}
