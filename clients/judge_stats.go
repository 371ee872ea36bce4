package clients

import (
	"errors"
	"math"
	"time"

	"github.com/aclements/go-moremath/mathx"
	"github.com/aclements/go-moremath/stats"
)

// evidenceLevel is the one-sided error rate CL-07 and CL-13 accept for a
// verdict: a client that keeps the rule fails with probability at most
// this, and one that breaks it passes with probability at most this.
// Weaker evidence either way is inconclusive.
const evidenceLevel = 0.01

// shorterP returns the one-sided p-value (exact Mann–Whitney U) of the
// hypothesis that the values of a tend to be shorter than those of b,
// against their coming from one distribution. Samples that are all equal
// carry no evidence: 1.
func shorterP(a, b []float64) float64 {
	r, err := stats.MannWhitneyUTest(a, b, stats.LocationLess)
	if errors.Is(err, stats.ErrSamplesEqual) || err != nil {
		return 1
	}
	return r.P
}

// risingP returns the one-sided p-value of the Jonckheere–Terpstra test
// that the values trend upward over the groups (an ordered alternative, not
// each group above the one before), against every group coming from one
// distribution. It uses the normal approximation, whose
// rate of p < 0.01 on such groups stays within 0.5–1.1 % for the shapes
// CL-07 sees (TestRisingP_null). Hand-written: no maintained Go library
// has it, and it is a sum of Mann–Whitney counts.
func risingP(groups [][]float64) float64 {
	var j, n, sq, cube float64
	for a, ga := range groups {
		m := float64(len(ga))
		n += m
		sq += m * m
		cube += m * m * (2*m + 3)
		for _, gb := range groups[a+1:] {
			for _, x := range ga {
				for _, y := range gb {
					switch {
					case y > x:
						j++
					case y == x:
						j += 0.5
					}
				}
			}
		}
	}
	mean := (n*n - sq) / 4
	sd := math.Sqrt((n*n*(2*n+3) - cube) / 72)
	if sd == 0 {
		return 1
	}
	z := (j - mean - 0.5) / sd
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// seconds converts waits to float seconds.
func seconds(ws []time.Duration) []float64 {
	out := make([]float64, len(ws))
	for i, w := range ws {
		out[i] = w.Seconds()
	}
	return out
}

// smallestJitter is the narrowest jitter CL-13 is designed to pass:
// waits drawn uniformly within ±10 % of their centre.
const smallestJitter = 0.10

// lockstepShare is the spread, as a share of the median wait, within
// which a shared runner's own delays keep clients that wait exactly
// alike: measured at 0–3 ms on waits of 2–4 s (0.1 %), so 2 % is wide.
const lockstepShare = 0.02

// narrowJitter is the widest jitter CL-13 fails outright, when enough
// clients fail together to tell it from smallestJitter: waits drawn
// within ±2.5 % of their centre, a quarter of smallestJitter (100 ms on a
// 4 s wait is ±1.25 %). Brooker 2015 jitters to spread a wave of retries
// over the wait (full jitter over all of it, equal jitter over half);
// jitter this narrow leaves the whole wave within a twentieth of the
// wait, one burst to the server as lockstep retries are.
const narrowJitter = 0.025

// narrowSpread is the most trimmed spread, as a share of the median wait,
// of clients jittered by ±narrowJitter that a runner delays by up to
// lockstepShare: the jitter's whole width and the runner's spread.
const narrowSpread = 2*narrowJitter + lockstepShare

// trimOf is how many waits CL-13 drops at each end of n before measuring
// their spread: one from five on, so one instance the runner delayed
// cannot make lockstep look dispersed.
func trimOf(n int) int {
	if n >= 5 {
		return 1
	}
	return 0
}

// jitterFloor returns the trimmed spread, as a share of the median, that
// n clients jittered by smallestJitter reach with probability at least
// 1 − evidenceLevel. Their trimmed range is a spacing of uniform order
// statistics, Beta(n−1−2t, 2+2t) distributed on the jitter's width 2j.
func jitterFloor(n int) float64 {
	t := trimOf(n)
	a, b := float64(n-1-2*t), float64(2+2*t)
	if a < 1 {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if mathx.BetaInc(mid, a, b) < evidenceLevel {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 2 * smallestJitter * lo
}
