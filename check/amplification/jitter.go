package amplification

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// Lockstep thresholds of RB-15: a retry index is fixed when more than 70 %
// of its waits lie within 20 % above the shortest one. Measured waits only
// ever grow by the target's processing time, so a fixed wait keeps nearly
// all samples in that band on a busy machine, while full jitter keeps almost
// none (more than 70 % in under 1 run in 10⁵ with 10+ waits). Growth: the
// longest second wait must exceed the 90th percentile of the first waits by
// 20 % (every cited formula doubles the ceiling, and a ceiling that does not
// grow fails it, jittered or not). With full jitter each second wait stays
// below that bound with probability about 0.54, so the test is judged only
// on minGrowthWaits second waits or more: 0.54²⁰ ≈ 4·10⁻⁶ per run, where 10
// waits gave 2·10⁻³ and failed correct targets in the defect matrix. Wider quantile ratios are too noisy with
// the few second waits a short certification gets. A target that declares
// an exponential backoff with a jitter j below the band is held to half its
// own spread instead: uniform ±j puts about a quarter of its waits there.
const (
	lockstepBand  = 0.20
	lockstepShare = 0.70
	minGrowth     = 1.2
	// minGrowthWaits is the fewest second waits RB-15 judges growth on.
	minGrowthWaits = 20
	minFleet       = 16 // fewest retries of requests failing together BO-08 judges
)

// samplesPerRun is the most samples one run of a backoff check takes.
const samplesPerRun = 3

// sampledBackoff samples the target's retry waits against a failing
// dependency and lets judge decide. A failure must show in two samples of
// three: on a busy machine a starved target can release every timer that
// came due meanwhile at once, which looks like lockstep, and a starved
// target's lockstep retries spread out, which looks like jitter; the
// runner's stall watch sees neither, as the target is another process.
// Missing jitter shows in most samples, so a first failure is confirmed by
// a second, and when the second passes a third decides.
func sampledBackoff(ctx context.Context, c *check.Case, judge func(*check.Harness, *backoffSample) check.Result) check.Result {
	h := c.Harness
	return twoOfThree(func(n int) *backoffSample { return takeBackoffSampleN(ctx, h, c, n) },
		func(s *backoffSample) check.Result { return judge(h, s) })
}

// twoOfThree is sampledBackoff's verdict on the samples sample(0), (1)
// and (2), each taken only when the verdicts before it call for it.
func twoOfThree(sample func(n int) *backoffSample, judge func(*backoffSample) check.Result) check.Result {
	s := sample(0)
	if s.reason != "" {
		return check.Inconclusive("%s", s.reason)
	}
	first := judge(s)
	if first.Status != reports.StatusFail {
		return first
	}
	s2 := sample(1)
	if s2.reason != "" {
		return check.Inconclusive("a first sample failed (%s), and a second to confirm it could not be taken: %s", first.Observed, s2.reason)
	}
	second := judge(s2)
	if second.Status == reports.StatusFail {
		second.Observed = "in two samples; the first: " + first.Observed + "; the second: " + second.Observed
		second.Evidence = slices.Concat(first.Evidence, second.Evidence) // both alias the shared samples
		return second
	}
	if second.Status != reports.StatusPass {
		return second
	}
	s3 := sample(2)
	if s3.reason != "" {
		return check.Inconclusive("a first sample failed (%s) and a second passed (%s); a third to decide could not be taken: %s", first.Observed, second.Observed, s3.reason)
	}
	third := judge(s3)
	switch third.Status {
	case reports.StatusFail:
		third.Observed = "in two samples of three; the first: " + first.Observed + "; the third: " + third.Observed + "; the second passed: " + second.Observed
		third.Evidence = slices.Concat(first.Evidence, third.Evidence)
	case reports.StatusPass:
		third.Observed += "; the first of three samples failed and the other two passed, so a busy machine's scheduling made it (" + first.Observed + ")"
	}
	return third
}

func randomizedBackoff(ctx context.Context, c *check.Case) check.Result {
	return sampledBackoff(ctx, c, judgeRandomized)
}

// judgeRandomized is RB-15's verdict on a sample: dispersed and growing.
func judgeRandomized(h *check.Harness, s *backoffSample) check.Result {
	band := lockstepBand
	if r := h.Policy.Retry; r.Backoff == "exponential" && r.Jitter > 0 {
		band = min(band, r.Jitter/2)
	}
	tol := float64(h.Slack()) / float64(time.Millisecond)
	want := fmt.Sprintf("for each retry, at most %.0f%% of waits within %.0f%% (at most %s) above the shortest (dispersed); the longest second wait ≥ %.1f× the 90th percentile of the first (growing)",
		100*lockstepShare, 100*band, h.Slack()/2, minGrowth)
	if len(s.waits[0]) < minWaits {
		return check.Inconclusive("only %d first waits, fewer than the %d dispersion is judged on (%s)", len(s.waits[0]), minWaits, s.summary())
	}
	var seen []string
	// quiet is the longest stall the pass can bear (Result.Quiet): a
	// stall may spread fixed waits out of the band; 0 while no retry's
	// waits crowd it (suspectShare).
	var quiet time.Duration
	for i, ws := range s.waits {
		if len(ws) < minWaits {
			seen = append(seen, fmt.Sprintf("retry %d: %d waits, not judged", i+1, len(ws)))
			continue
		}
		xs := millis(ws)
		// The band is relative, as jitter is, but never wider than half the
		// harness's timing tolerance: waits spread over more than the
		// tolerance are dispersed, however long. got's additive noise in
		// [0, 100 ms) is only 5 % of a 2 s wait; a band of the whole 50 ms
		// tolerance held half its waits and failed 32–39 % of samples (both
		// retries judged), half the tolerance holds about a quarter and
		// fails under 1 % (TestBackoffJudges_FalseAlarms).
		width := min(band*quantile(xs, 0), tol/2)
		// Judged on the waits no stall of the runner longer than the band
		// spread, when enough were, the verdict is the target's whatever
		// the runner did in the other waits.
		calm, note := false, ""
		if cw := s.calm(i, fromMs(width)); len(cw) >= minWaits {
			calm = true
			if len(cw) < len(ws) {
				note = fmt.Sprintf(" (the %d of %d during which the runner was never late by more than %.1f ms)", len(cw), len(ws), width)
				xs = millis(cw)
				width = min(band*quantile(xs, 0), tol/2)
			}
		}
		conc := nearFloor(xs, width)
		line := fmt.Sprintf("retry %d: %d waits%s from %.1f to %.1f ms, median %.1f, %.0f%% within %.1f ms above the shortest",
			i+1, len(xs), note, quantile(xs, 0), quantile(xs, 1), quantile(xs, 0.5), 100*conc, width)
		if conc > lockstepShare {
			res := check.Fail(want, line+": the waits are fixed, so clients that fail together retry together", s.calls...)
			if calm {
				res = res.Untimed()
			}
			return res
		}
		if w := max(fromMs(width), time.Millisecond); !calm && conc > suspectShare && (quiet == 0 || w < quiet) {
			quiet = w
		}
		seen = append(seen, line)
	}
	switch n, need := len(s.waits[1]), growthWaits(h.Policy.Retry); {
	case n >= need:
		q0, q1 := quantile(millis(s.waits[0]), 0.9), quantile(millis(s.waits[1]), 1)
		line := fmt.Sprintf("first waits' 90th percentile %.1f ms, longest of %d second waits %.1f ms (×%.2f)", q0, n, q1, q1/q0)
		if q1 < minGrowth*q0 {
			return check.Fail(want, line+": the waits do not grow", s.calls...)
		}
		seen = append(seen, line)
	default:
		seen = append(seen, fmt.Sprintf("growth not judged: %d second waits, fewer than the %d it is judged on", n, need))
	}
	res := check.Pass(want, strings.Join(seen, "; ")+" ("+s.summary()+")", s.calls...)
	res.Quiet = quiet
	return res
}

func fleetLockstep(ctx context.Context, c *check.Case) check.Result {
	return sampledBackoff(ctx, c, judgeFleet)
}

// judgeFleet is BO-08's verdict on a sample.
func judgeFleet(h *check.Harness, s *backoffSample) check.Result {
	cfg := config(h)
	if s.unkeyed {
		return check.NotApplicable("the target forwards no %s to its dependency: retries of requests failing together cannot be told apart", h.Conventions.DependencyKeyName())
	}
	if len(s.fleets) < minFleet {
		return check.Inconclusive("only %d retries from requests that failed together", len(s.fleets))
	}
	// Each retry is placed at its own failure time plus its wait, as if every
	// failure had been simultaneous: the harness cannot make them exactly so.
	bucket, from := lockstepBucket(h, s.fleets)
	fleets, note := s.fleets, ""
	// Judged on the waits no stall of the runner longer than a bucket
	// spread, when enough were, the verdict is the target's whatever the
	// runner did in the other waits.
	cw := s.calm(-1, bucket)
	calm := len(cw) >= minFleet
	if calm && len(cw) < len(fleets) {
		fleets, note = cw, fmt.Sprintf(", the %d of %d during which the runner was never late by more than a bucket", len(cw), len(s.fleets))
	}
	if late, hi := lateFleet(h, fleets); 10*late > 3*len(fleets) {
		return check.NoisyRunner("%d of %d first waits came more than %s (the harness tolerance) after the declared bound %s, so scheduling delays, not the target's jitter, spread them", late, len(fleets), h.Slack(), hi)
	}
	xs := millis(fleets)
	w := float64(bucket) / float64(time.Millisecond)
	most := maxInWindow(xs, w)
	share := float64(most) / float64(len(xs))
	want := fmt.Sprintf("at most %.0f%% of the retries of requests failing together land in one %s bucket (%s)", 100*cfg.maxBucketShare(), bucket, from)
	obs := fmt.Sprintf("%d of %d retries (%.0f%%) in the busiest %s bucket; first waits from %.1f to %.1f ms%s",
		most, len(xs), 100*share, bucket, quantile(xs, 0), quantile(xs, 1), note)
	if share > cfg.maxBucketShare() {
		res := check.Fail(want, obs+": lockstep, every failed client hits the dependency again at the same instant", s.calls...)
		if calm {
			res = res.Untimed()
		}
		return res
	}
	res := check.Pass(want, obs, s.calls...)
	if share > suspectShare && !calm {
		// Lockstep retries that a stall of the runner spread over a few
		// buckets look like this; a quiet run tells them apart.
		res.Quiet = bucket
	}
	return res
}

// fromMs is n milliseconds.
func fromMs(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

// suspectShare is the share of retries in one bucket above which BO-08's
// pass is trusted only from a run the runner did not stall longer than a
// bucket in: a uniform spread puts more than half of 16 retries in one
// fifth of its range in under 4 % of samples (of 28, 0.3 %), lockstep
// dispersed by a stall often does. RB-15 holds a retry's waits within its
// band above the shortest to the same share (a jitter of ±j puts about a
// quarter there).
const suspectShare = 0.5

// Bounds of BO-08's bucket: below minBucket a busy runner's scheduling
// alone spreads lockstep retries over several buckets; a backoff declared
// too narrow to scale by gets a tenth of the sampled median first wait
// within [minBucket, maxNarrowBucket], so lockstep at any wait stays
// inside one. Without a declared backoff the bucket is undeclaredBucket:
// nothing to hold the waits to, and a busy runner's scheduling alone
// spreads retries sent at once that far (a CI run saw flask-orders',
// urllib3 retrying at once, arrive 0.5 to 9.9 ms after their failures,
// 12 of 19 in the busiest 5 ms), so waits within it are not taken for
// jitter.
const (
	minBucket        = 5 * time.Millisecond
	maxNarrowBucket  = 10 * time.Millisecond
	undeclaredBucket = 10 * time.Millisecond
)

// lockstepBucket is BO-08's bucket and where it comes from: set in the
// configuration; a fifth of the declared first wait's spread (a uniform
// spread puts ~20 % in each); declared narrower than 5 minimal buckets
// (too little jitter to scale by), a tenth of the sampled median first
// wait within [minBucket, maxNarrowBucket]; undeclared, undeclaredBucket.
func lockstepBucket(h *check.Harness, fleets []time.Duration) (bucket time.Duration, from string) {
	if b := config(h).Bucket; b > 0 {
		return b, "amplification.Config.Bucket"
	}
	lo, hi, ok := h.Policy.Retry.WaitBounds(0)
	if !ok {
		return undeclaredBucket, fmt.Sprintf("no backoff declared: %s, the widest a busy runner's scheduling spreads retries sent at once", undeclaredBucket)
	}
	if spread := hi - lo; spread >= 5*minBucket {
		return spread / 5, fmt.Sprintf("a fifth of the declared first wait's range [%s, %s]", lo, hi)
	}
	med := time.Duration(quantile(millis(fleets), 0.5) * float64(time.Millisecond))
	return min(maxNarrowBucket, max(minBucket, med/10)),
		fmt.Sprintf("the declared first wait's range [%s, %s] is too narrow to scale by: a tenth of the median first wait %s, within [%s, %s]", lo, hi, med.Round(100*time.Microsecond), minBucket, maxNarrowBucket)
}

// bucketText describes BO-08's bucket for the tolerances list.
func bucketText(h *check.Harness) string {
	if lo, hi, ok := h.Policy.Retry.WaitBounds(0); ok && hi-lo < 5*minBucket && config(h).Bucket == 0 {
		return fmt.Sprintf("a tenth of the sampled median first wait, within [%s, %s] (the declared first wait's range is too narrow to scale by)", minBucket, maxNarrowBucket)
	}
	b, from := lockstepBucket(h, nil)
	return fmt.Sprintf("%s (%s)", b, from)
}

// lateFleet counts the fleet's first waits later than the declared first
// wait's bound plus the harness tolerance; none without a declared formula.
func lateFleet(h *check.Harness, fleets []time.Duration) (late int, hi time.Duration) {
	_, hi, ok := h.Policy.Retry.WaitBounds(0)
	if !ok {
		return 0, 0
	}
	for _, w := range fleets {
		if w > hi+h.Slack() {
			late++
		}
	}
	return late, hi
}

// growthWaits is the fewest second waits RB-15 judges growth on: 20, or
// minWaits for a declared exponential backoff whose jitter j is at most 25 %,
// where the longest second wait, at least (1−j)·2v, can never fall below
// 1.2× the first waits' (1+j)·v.
func growthWaits(r check.RetryPolicy) int {
	if r.Backoff == "exponential" && r.Jitter <= 0.25 {
		return minWaits
	}
	return minGrowthWaits
}
