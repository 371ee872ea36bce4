package amplification

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/check"
)

// minRangeWaits is the fewest waits of one retry index a range-only judge
// (BO-04) looks at: each wait is held to its own range, so a handful shows
// a wrong base, cap or spread.
const minRangeWaits = 4

// jitterFormula checks the waits against the declared formula kind; the
// check runs only when the target declares that kind (needBackoff).
func jitterFormula(kind string) func(context.Context, *check.Case) check.Result {
	return func(ctx context.Context, c *check.Case) check.Result {
		return sampledBackoff(ctx, c, func(h *check.Harness, s *backoffSample) check.Result {
			switch kind {
			case "decorrelated":
				return judgeDecorrelated(h, s)
			case "exponential":
				return judgeExponential(h, s)
			}
			return judgeUniform(h, s, kind)
		})
	}
}

// judgeUniform tests full (U[0, v]) or equal (U[v/2, v]) jitter, v =
// min(cap, base·2ⁿ) as declared: at most 10 % of the waits may exceed the
// range by more than the tolerance (the wait includes the target's own
// processing), and the KS distance to the uniform law stays below its
// critical value at α = 10⁻⁴: a certification has ~40 waits per index, runs
// the test on every run, and lockstep gives a distance near 1, so the
// strict α costs no power where it matters.
func judgeUniform(h *check.Harness, s *backoffSample, kind string) check.Result {
	r, tol := h.Policy.Retry, h.Slack()
	r.Backoff = kind
	tolMs := float64(tol) / float64(time.Millisecond)
	want := fmt.Sprintf("retry n waits uniformly in [0, v] (%s jitter), v = min(%s, %s·2ⁿ) as declared: ≤ 10%% of waits beyond the range ± %s, KS distance below its α = 10⁻⁴ critical value",
		kind, r.CapText(), r.Base, tol)
	if kind == "equal" {
		want = strings.Replace(want, "[0, v]", "[v/2, v]", 1)
	}
	if len(s.waits[0]) < minWaits {
		return check.Inconclusive("only %d first waits, fewer than the %d the law is tested on (%s)", len(s.waits[0]), minWaits, s.summary())
	}
	var seen []string
	for i, ws := range s.waits {
		if len(ws) < minWaits {
			seen = append(seen, fmt.Sprintf("retry %d: %d waits, not judged", i+1, len(ws)))
			continue
		}
		xs := millis(ws)
		lo, hi, _ := r.WaitBounds(i)
		loMs, hiMs := ms(lo), ms(hi)
		out := shareOutside(xs, loMs-tolMs, hiMs+tolMs)
		d, crit := ksUniform(xs, loMs, hiMs), ksCritical(len(xs))
		line := fmt.Sprintf("retry %d: %d waits vs U[%.0f, %.0f] ms: %.0f%% out of range, KS %.2f (critical %.2f)", i+1, len(xs), loMs, hiMs, 100*out, d, crit)
		if out > 0.1 || d > crit {
			return check.Fail(want, line+fmt.Sprintf("; waits from %.1f to %.1f ms, median %.1f", quantile(xs, 0), quantile(xs, 1), quantile(xs, 0.5)), s.calls...)
		}
		seen = append(seen, line)
	}
	return check.Pass(want, strings.Join(seen, "; ")+" ("+s.summary()+")", s.calls...)
}

// judgeExponential holds each wait to the declared exponential backoff,
// v = min(cap, base·2ⁿ) spread by ±jitter (gRFC A6 spreads ±20 %): at most
// 10 % of the waits of a retry index may fall outside [(1−j)·v − tol,
// (1+j)·v + tol]. It judges ranges, not the law inside them.
func judgeExponential(h *check.Harness, s *backoffSample) check.Result {
	r, tol := h.Policy.Retry, h.Slack()
	tolMs := float64(tol) / float64(time.Millisecond)
	want := fmt.Sprintf("retry n waits within [(1−%g)·v, (1+%g)·v] ± %s, v = min(%s, %s·2ⁿ) as declared; ≤ 10%% outside",
		r.Jitter, r.Jitter, tol, r.CapText(), r.Base)
	var seen []string
	judged := 0
	for i, ws := range s.waits {
		if len(ws) < minRangeWaits {
			seen = append(seen, fmt.Sprintf("retry %d: %d waits, not judged", i+1, len(ws)))
			continue
		}
		judged++
		xs := millis(ws)
		lo, hi, _ := r.WaitBounds(i)
		out := shareOutside(xs, ms(lo)-tolMs, ms(hi)+tolMs)
		line := fmt.Sprintf("retry %d: %d waits from %.1f to %.1f ms vs [%.0f, %.0f] ms: %.0f%% out of range",
			i+1, len(xs), quantile(xs, 0), quantile(xs, 1), ms(lo), ms(hi), 100*out)
		if out > 0.1 {
			return check.Fail(want, line+" ("+s.summary()+")", s.calls...)
		}
		seen = append(seen, line)
	}
	if judged == 0 {
		return check.Inconclusive("too few waits to judge: %s (%s)", strings.Join(seen, "; "), s.summary())
	}
	return check.Pass(want, strings.Join(seen, "; ")+" ("+s.summary()+")", s.calls...)
}

// judgeDecorrelated checks each wait against the previous one of the same
// request: d₀ ∈ [base, min(cap, 3·base)], dₙ ∈ [base, min(cap, 3·dₙ₋₁)],
// with the tolerance above the range; at most 10 % may miss.
func judgeDecorrelated(h *check.Harness, s *backoffSample) check.Result {
	r, tol := h.Policy.Retry, h.Slack()
	want := fmt.Sprintf("each wait in [%s, min(%s, 3·previous)] (+%s), the first in [base, 3·base] as declared; ≤ 10%% outside", r.Base, r.CapText(), tol)
	var n, bad int
	for _, chain := range s.chains {
		prev := r.Base
		for _, w := range chain {
			n++
			hi := 3 * prev
			if r.Cap > 0 {
				hi = min(r.Cap, hi)
			}
			if w < r.Base || w > hi+tol {
				bad++
			}
			prev = w
		}
	}
	obs := fmt.Sprintf("%d of %d waits outside their range (%s)", bad, n, s.summary())
	if float64(bad) > 0.1*float64(n) {
		return check.Fail(want, obs, s.calls...)
	}
	return check.Pass(want, obs, s.calls...)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
