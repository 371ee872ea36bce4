package amplification

import (
	"math"
	"slices"
	"time"
)

// The statistics behind the backoff checks. Samples are waits in
// milliseconds; every function leaves its input unchanged.

func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// quantile is the q-quantile of xs by linear interpolation; NaN when empty.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (pos-float64(lo))*(s[hi]-s[lo])
}

// nearFloor is the share of xs within width above their minimum: near 1
// for waits that are all the same plus positive noise (lockstep), near 0
// for full jitter, whose minimum is close to 0.
func nearFloor(xs []float64, width float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := quantile(xs, 0)
	n := 0
	for _, x := range xs {
		if x <= m+width {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// ksUniform is the Kolmogorov–Smirnov distance between xs and Uniform(lo, hi).
func ksUniform(xs []float64, lo, hi float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := float64(len(s))
	var d float64
	for i, x := range s {
		f := math.Min(math.Max((x-lo)/(hi-lo), 0), 1)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// ksCritical is the KS critical distance at α = 10⁻⁴ for n samples
// (Stephens' approximation c(α)/(√n + 0.12 + 0.11/√n), with
// c(α) = √(−ln(α/2)/2) = 2.2255).
func ksCritical(n int) float64 {
	r := math.Sqrt(float64(n))
	return 2.2255 / (r + 0.12 + 0.11/r)
}

// maxInWindow is the largest number of xs inside any window of width w.
func maxInWindow(xs []float64, w float64) int {
	s := slices.Sorted(slices.Values(xs))
	best, lo := 0, 0
	for hi := range s {
		for s[hi]-s[lo] >= w {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// shareOutside is the share of xs outside [lo, hi].
func shareOutside(xs []float64, lo, hi float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	n := 0
	for _, x := range xs {
		if x < lo || x > hi {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}
