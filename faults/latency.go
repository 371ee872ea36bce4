package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Latency waits, per exchange, a duration drawn from ex.Rand, so a dependency
// answers mostly fast with a slow tail, as tests of hedged requests need. A
// rule gives exactly one distribution: bimodal (Fast, or Slow for a SlowShare
// of exchanges) or percentiles (P50, P90, P99, Max, drawn by inverse CDF with
// linear interpolation from 0 at quantile 0); Phase is as Delay's.
type Latency struct {
	// Fast is the bimodal wait of the exchanges that are not slow.
	Fast time.Duration `attr:"fast"`
	// Slow is the bimodal tail's wait; it must not be below Fast.
	Slow time.Duration `attr:"slow"`
	// SlowShare is the share of exchanges, in [0, 1], that wait Slow.
	SlowShare float64 `attr:"slow_share"`
	// Jitter spreads a bimodal wait uniformly over ±Jitter, never below zero.
	Jitter time.Duration `attr:"jitter"`

	// P50, P90 and P99 are optional points of the percentile shape: one left
	// out (zero) is interpolated over. Max, the shape's top, is required.
	P50 time.Duration `attr:"p50"`
	P90 time.Duration `attr:"p90"`
	P99 time.Duration `attr:"p99"`
	Max time.Duration `attr:"max"`

	// Phase is "request" (default) or "response".
	Phase string `attr:"phase"`
}

var _ Fault = Latency{}
var _ Validator = Latency{}

func init() { Register("latency", func() Fault { return new(Latency) }) }

func (f Latency) bimodal() bool { return f.Fast != 0 || f.Slow != 0 || f.SlowShare != 0 }

func (f Latency) shape() bool { return f.P50 != 0 || f.P90 != 0 || f.P99 != 0 || f.Max != 0 }

// Validate requires exactly one shape, durations that are not negative, a
// share in [0, 1] and percentile points that strictly increase, so the
// inverse CDF is a function.
func (f Latency) Validate() error {
	for _, d := range []time.Duration{f.Fast, f.Slow, f.Jitter, f.P50, f.P90, f.P99, f.Max} {
		if d < 0 {
			return errors.New("durations must not be negative")
		}
	}
	switch {
	case f.Phase != "" && f.Phase != "request" && f.Phase != "response":
		return fmt.Errorf("phase %q: want request or response", f.Phase)
	case f.bimodal() && f.shape():
		return errors.New("give fast, slow and slow_share, or p50, p90, p99 and max, not both")
	case f.bimodal():
		switch {
		case !(f.SlowShare >= 0 && f.SlowShare <= 1):
			return fmt.Errorf("slow_share %v not in [0, 1]", f.SlowShare)
		case f.Slow <= 0:
			return errors.New("slow must be a positive duration")
		case f.Slow < f.Fast:
			return fmt.Errorf("slow %v is below fast %v", f.Slow, f.Fast)
		}
	case f.shape():
		if f.Jitter != 0 {
			return errors.New("jitter applies to fast and slow only; a percentile shape is already spread")
		}
		if f.Max == 0 {
			return errors.New("a percentile shape needs max")
		}
		pts := f.points()
		for i := 2; i < len(pts); i++ {
			if pts[i].d <= pts[i-1].d {
				return fmt.Errorf("%s %v is not above %s %v", pts[i].name, pts[i].d, pts[i-1].name, pts[i-1].d)
			}
		}
	default:
		return errors.New("give fast, slow and slow_share, or p50, p90, p99 and max")
	}
	return nil
}

type quantilePoint struct {
	name string
	q    float64
	d    time.Duration
}

// points lists the shape's inverse CDF from (0, 0) to (1, Max), skipping
// points left out.
func (f Latency) points() []quantilePoint {
	pts := []quantilePoint{{"0", 0, 0}}
	for _, p := range []quantilePoint{{"p50", 0.5, f.P50}, {"p90", 0.9, f.P90}, {"p99", 0.99, f.P99}, {"max", 1, f.Max}} {
		if p.d != 0 {
			pts = append(pts, p)
		}
	}
	return pts
}

// Wait returns the wait for ex, drawn from ex.Rand.
func (f Latency) Wait(ex *Exchange) time.Duration { return f.draw(ex.Rand()) }

// draw takes the share (or the quantile) first and the jitter second; the
// order is part of what a seed replays.
func (f Latency) draw(r *rand.Rand) time.Duration {
	if !f.shape() {
		d := f.Fast
		if r.Float64() < f.SlowShare {
			d = f.Slow
		}
		return jittered(r, d, f.Jitter)
	}
	return f.quantile(r.Float64())
}

// quantile is the shape's inverse CDF at u in [0, 1].
func (f Latency) quantile(u float64) time.Duration {
	pts := f.points()
	for i := 1; i < len(pts); i++ {
		lo, hi := pts[i-1], pts[i]
		if u < hi.q {
			return lo.d + time.Duration(float64(hi.d-lo.d)*(u-lo.q)/(hi.q-lo.q))
		}
	}
	return f.Max
}

// Inject waits the drawn duration in Phase. A Delay without jitter draws
// nothing more, so delegating keeps the two faults' phases identical.
func (f Latency) Inject(ex *Exchange) error {
	return Delay{Duration: f.Wait(ex), Phase: f.Phase}.Inject(ex)
}
