package reports

import (
	"math"
	"testing"
	"time"
)

// TestNewLoadChart: the busiest bucket's stacked bar fills the rate panel,
// parts stack without gaps, and the slowest bucket's tick tops the latency
// panel.
func TestNewLoadChart(t *testing.T) {
	t.Parallel()
	l := &Load{Start: ms(1000), Bucket: ms(100), Sides: []LoadSide{{Side: "front", Points: []LoadPoint{
		{OK: 6, Refused: 4, P50: ms(10), Max: ms(40)},
		{OK: 5, Failed: -3, P50: ms(5), Max: ms(10)}, // a negative count is drawn as zero
		{},
	}}}}
	lc := newLoadChart(l)
	if lc == nil || len(lc.Panels) != 2 {
		t.Fatalf("chart %+v; want a rate and a latency panel", lc)
	}
	rate, lat := lc.Panels[0], lc.Panels[1]
	if rate.Max != "100/s" || lat.Max != "40ms" || len(rate.Buckets) != 2 || len(lat.Buckets) != 2 {
		t.Fatalf("rate max %s, latency max %s, %d and %d buckets drawn; want 100/s, 40ms, 2 and 2", rate.Max, lat.Max, len(rate.Buckets), len(lat.Buckets))
	}
	first := rate.Buckets[0].Bars
	if len(first) != 2 || first[0].Y+first[0].H != rate.Base || first[1].Y+first[1].H != first[0].Y || first[1].Y != rate.Top {
		t.Errorf("first bucket's bars %+v do not stack from the base %s to the top %s", first, rate.Base, rate.Top)
	}
	if got := rate.Buckets[1].Bars; len(got) != 1 || got[0].H != tenths(lcRateH*10)*5/10 {
		t.Errorf("second bucket's bars %+v; want one of half the panel", got)
	}
	if tick := lat.Buckets[0].Bars[1]; tick.Class != "lat-max" || tick.Y != lat.Top {
		t.Errorf("slowest tick %+v; want at the latency panel's top %s", tick, lat.Top)
	}
	if newLoadChart(&Load{Bucket: 0, Sides: l.Sides}) != nil || newLoadChart(nil) != nil {
		t.Errorf("a load with no bucket width or none at all is drawn")
	}
}

// TestNewLoadChart_hugeCounts: three counts whose sum exceeds a uint64 (a
// hand-edited report) draw without panicking, each bar within the panel.
func TestNewLoadChart_hugeCounts(t *testing.T) {
	t.Parallel()
	l := &Load{Bucket: Duration(time.Second), Sides: []LoadSide{{Side: "front", Points: []LoadPoint{
		{OK: math.MaxInt, Refused: math.MaxInt, Failed: math.MaxInt},
		{OK: 1, Refused: -1, Failed: math.MaxInt},
	}}}}
	lc := newLoadChart(l)
	if lc == nil {
		t.Fatal("no chart")
	}
	for _, p := range lc.Panels {
		for _, b := range p.Buckets {
			for _, bar := range b.Bars {
				if bar.H < 0 || bar.Y < p.Top || bar.Y+bar.H > p.Base {
					t.Errorf("%s bar at y %d, height %d, outside the panel [%d, %d]", bar.Class, bar.Y, bar.H, p.Top, p.Base)
				}
			}
		}
	}
	if got := barTotal(LoadPoint{OK: math.MaxInt, Refused: -1, Failed: math.MaxInt}); got != 2*float64(math.MaxInt) {
		t.Errorf("barTotal = %g, want 2·MaxInt", got)
	}
}
