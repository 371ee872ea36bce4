package clients

import (
	"testing"
	"time"
)

// TestWidestWait_spread: the judged wait is the one with the longest
// median; with five instances or more one outlier at either end does not
// widen its spread, so a runner that delays one lockstep client cannot
// pass CL-13 for it.
func TestWidestWait_spread(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name   string
		series [][]time.Duration
		k      int
		median time.Duration
		spread time.Duration
	}{
		{"lockstep, one late", [][]time.Duration{ms(500, 2000), ms(500, 2001), ms(500, 2002), ms(500, 2001), ms(500, 2400)}, 1, 2001 * time.Millisecond, 1 * time.Millisecond},
		{"lockstep, one early and one late", [][]time.Duration{ms(1000), ms(700), ms(1001), ms(1002), ms(1300), ms(1000)}, 0, 1001 * time.Millisecond, 2 * time.Millisecond},
		{"jittered", [][]time.Duration{ms(100), ms(900), ms(400), ms(1500), ms(1200)}, 0, 900 * time.Millisecond, 800 * time.Millisecond},
		{"two instances keep the whole range", [][]time.Duration{ms(1000), ms(1300)}, 0, 1300 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, median, spread := widestWait(c.series)
			if k != c.k || median != c.median || spread != c.spread {
				t.Errorf("widestWait = %d, %s, %s; want %d, %s, %s", k, median, spread, c.k, c.median, c.spread)
			}
		})
	}
}
