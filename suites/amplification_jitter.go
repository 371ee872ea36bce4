package suites

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Lockstep thresholds of RB-15: a retry index is fixed when more than 70 %
// of its waits lie within 20 % above the shortest one. Measured waits only
// ever grow by the target's processing time, so a fixed wait keeps nearly
// all samples in that band on a busy machine, while full jitter keeps almost
// none (more than 70 % in under 1 run in 10⁵ with 10+ waits). Growth: the
// longest second wait must exceed the 90th percentile of the first waits by
// 20 % (every cited formula doubles the ceiling; with full jitter and 14
// second waits this errs in about 2 runs in 10⁴, and a ceiling that does not
// grow fails it, jittered or not). Wider quantile ratios are too noisy with
// the few second waits a short certification gets.
const (
	lockstepBand  = 0.20
	lockstepShare = 0.70
	minGrowth     = 1.2
	minFleet      = 16 // fewest retries of requests failing together BO-08 judges
)

// sampledBackoff samples the target's retry waits against a failing
// dependency and lets judge decide.
func sampledBackoff(ctx context.Context, c *Case, judge func(*Harness, *backoffSample) Result) Result {
	h := c.h
	s := h.backoffSample(ctx, c)
	if s.reason != "" {
		return inconclusive("%s", s.reason)
	}
	return judge(h, s)
}

func randomizedBackoff(ctx context.Context, c *Case) Result {
	return sampledBackoff(ctx, c, judgeRandomized)
}

// judgeRandomized is RB-15's verdict on a sample: dispersed and growing.
func judgeRandomized(h *Harness, s *backoffSample) Result {
	want := fmt.Sprintf("for each retry, at most %.0f%% of waits within %.0f%% above the shortest (dispersed); the longest second wait ≥ %.1f× the 90th percentile of the first (growing)",
		100*lockstepShare, 100*lockstepBand, minGrowth)
	var seen []string
	for i, ws := range s.waits {
		if len(ws) < minWaits {
			seen = append(seen, fmt.Sprintf("retry %d: %d waits, not judged", i+1, len(ws)))
			continue
		}
		xs := millis(ws)
		conc := nearFloor(xs, lockstepBand)
		line := fmt.Sprintf("retry %d: %d waits from %.1f to %.1f ms, median %.1f, %.0f%% within %.0f%% above the shortest",
			i+1, len(xs), quantile(xs, 0), quantile(xs, 1), quantile(xs, 0.5), 100*conc, 100*lockstepBand)
		if conc > lockstepShare {
			return fail(want, line+": the waits are fixed, so clients that fail together retry together", s.calls...)
		}
		seen = append(seen, line)
	}
	if len(s.waits[1]) >= minWaits {
		q0, q1 := quantile(millis(s.waits[0]), 0.9), quantile(millis(s.waits[1]), 1)
		line := fmt.Sprintf("first waits' 90th percentile %.1f ms, longest second wait %.1f ms (×%.2f)", q0, q1, q1/q0)
		if q1 < minGrowth*q0 {
			return fail(want, line+": the waits do not grow", s.calls...)
		}
		seen = append(seen, line)
	}
	return pass(want, strings.Join(seen, "; ")+fmt.Sprintf(" (%d rounds)", s.rounds), s.calls...)
}

// jitterFormula checks the waits against the declared formula profile; the
// checks of the other profiles skip.
func jitterFormula(profile string) func(context.Context, *Case) Result {
	return func(ctx context.Context, c *Case) Result {
		cfg := c.h.Amplification
		if cfg.jitter() != profile {
			return notApplicable("the target declares %s jitter (AmplificationConfig.Jitter), not %s", cfg.jitter(), profile)
		}
		return sampledBackoff(ctx, c, func(h *Harness, s *backoffSample) Result {
			if profile == "decorrelated" {
				return judgeDecorrelated(h, s)
			}
			return judgeUniform(h, s, profile)
		})
	}
}

// judgeUniform tests full (U[0, v]) or equal (U[v/2, v]) jitter, v =
// min(cap, base·2ⁿ): at most 10 % of the waits may exceed the range by more
// than the tolerance (the wait includes the target's own processing), and
// the KS distance to the uniform law stays below its critical value at
// α = 10⁻⁴. The usual α = 0.01 wants 200 samples per index; a
// certification has ~40, runs the test on every run, and lockstep gives a
// distance near 1, so the stricter α costs no power where it matters.
func judgeUniform(h *Harness, s *backoffSample, profile string) Result {
	cfg, tol := h.Amplification, h.tolerance()
	tolMs := float64(tol) / float64(time.Millisecond)
	want := fmt.Sprintf("retry n waits uniformly in [0, v] (%s jitter), v = min(%s, %s·2ⁿ): ≤ 10%% of waits beyond the range ± %s, KS distance below its α = 10⁻⁴ critical value",
		profile, cfg.maxDelay(), cfg.baseDelay(), tol)
	if profile == "equal" {
		want = strings.Replace(want, "[0, v]", "[v/2, v]", 1)
	}
	var seen []string
	for i, ws := range s.waits {
		if len(ws) < minWaits {
			continue
		}
		xs := millis(ws)
		hi := float64(ceilFor(cfg.baseDelay(), cfg.maxDelay(), i)) / float64(time.Millisecond)
		lo := 0.0
		if profile == "equal" {
			lo = hi / 2
		}
		out := shareOutside(xs, lo-tolMs, hi+tolMs)
		d, crit := ksUniform(xs, lo, hi), ksCritical(len(xs))
		line := fmt.Sprintf("retry %d: %d waits vs U[%.0f, %.0f] ms: %.0f%% out of range, KS %.2f (critical %.2f)", i+1, len(xs), lo, hi, 100*out, d, crit)
		if out > 0.1 || d > crit {
			return fail(want, line+fmt.Sprintf("; waits from %.1f to %.1f ms, median %.1f", quantile(xs, 0), quantile(xs, 1), quantile(xs, 0.5)), s.calls...)
		}
		seen = append(seen, line)
	}
	return pass(want, strings.Join(seen, "; "), s.calls...)
}

// judgeDecorrelated checks each wait against the previous one of the same
// request: d₀ ∈ [base, min(cap, 3·base)], dₙ ∈ [base, min(cap, 3·dₙ₋₁)],
// with the tolerance above the range; at most 10 % may miss.
func judgeDecorrelated(h *Harness, s *backoffSample) Result {
	cfg, tol := h.Amplification, h.tolerance()
	want := fmt.Sprintf("each wait in [%s, min(%s, 3·previous)] (+%s), the first in [base, 3·base]; ≤ 10%% outside", cfg.baseDelay(), cfg.maxDelay(), tol)
	var n, bad int
	for _, chain := range s.chains {
		prev := cfg.baseDelay()
		for _, w := range chain {
			n++
			if w < cfg.baseDelay() || w > min(cfg.maxDelay(), 3*prev)+tol {
				bad++
			}
			prev = w
		}
	}
	obs := fmt.Sprintf("%d of %d waits outside their range", bad, n)
	if float64(bad) > 0.1*float64(n) {
		return fail(want, obs, s.calls...)
	}
	return pass(want, obs, s.calls...)
}

func fleetLockstep(ctx context.Context, c *Case) Result {
	return sampledBackoff(ctx, c, judgeFleet)
}

// judgeFleet is BO-08's verdict on a sample.
func judgeFleet(h *Harness, s *backoffSample) Result {
	cfg := h.Amplification
	if s.unkeyed {
		return notApplicable("the target forwards no %s to its dependency: retries of requests failing together cannot be told apart", h.Conventions.depKeyHeader())
	}
	if len(s.fleets) < minFleet {
		return inconclusive("only %d retries from requests that failed together", len(s.fleets))
	}
	// Each retry is placed at its own failure time plus its wait, as if every
	// failure had been simultaneous: the harness cannot make them exactly so.
	xs := millis(s.fleets)
	w := float64(cfg.bucket()) / float64(time.Millisecond)
	most := maxInWindow(xs, w)
	share := float64(most) / float64(len(xs))
	want := fmt.Sprintf("at most %.0f%% of the retries of requests failing together land in one %s bucket", 100*cfg.maxBucketShare(), cfg.bucket())
	obs := fmt.Sprintf("%d of %d retries (%.0f%%) in the busiest %s bucket; first waits from %.1f to %.1f ms",
		most, len(xs), 100*share, cfg.bucket(), quantile(xs, 0), quantile(xs, 1))
	if share > cfg.maxBucketShare() {
		return fail(want, obs+": lockstep, every failed client hits the dependency again at the same instant", s.calls...)
	}
	return pass(want, obs, s.calls...)
}
