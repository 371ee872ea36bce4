package check

import (
	"testing"
	"time"
)

// TestHarness_checkTimeout: --explore lengthens every check's bound by the
// exploring time and room to shrink, so a long exploration is not judged a
// stalled target.
func TestHarness_checkTimeout(t *testing.T) {
	for _, c := range []struct {
		explore, want time.Duration
	}{
		{0, CheckTimeout},
		{2 * time.Minute, CheckTimeout + 2*time.Minute + exploreShrinkRoom},
	} {
		h := &Harness{Explore: c.explore}
		if got := h.checkTimeout(); got != c.want {
			t.Errorf("Explore %s: checkTimeout = %s; want %s", c.explore, got, c.want)
		}
	}
}
