package client

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// refBound computes min(cap, base·2^retry) with arbitrary precision, as an
// oracle independent of Policy.Bound.
func refBound(p Policy, retry int) time.Duration {
	p = p.normalized()
	if retry > 80 {
		return p.Cap
	}
	v := new(big.Int).Lsh(big.NewInt(int64(p.Base)), uint(max(retry, 0)))
	if v.Cmp(big.NewInt(int64(p.Cap))) > 0 {
		return p.Cap
	}
	return time.Duration(v.Int64())
}

// TestNextDelay_property is issue 2's backoff property: every delay is within
// its full-jitter bound, never before Retry-After, never past the deadline.
func TestNextDelay_property(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		p := Policy{
			Base:          time.Duration(rapid.Int64Range(-1, int64(time.Second)).Draw(t, "base")),
			Cap:           time.Duration(rapid.Int64Range(-1, int64(time.Minute)).Draw(t, "cap")),
			MaxRetryAfter: time.Duration(rapid.Int64Range(-1, int64(time.Minute)).Draw(t, "maxRetryAfter")),
		}
		retry := rapid.IntRange(-1, 200).Draw(t, "retry")
		hasRA := rapid.Bool().Draw(t, "hasRetryAfter")
		ra := time.Duration(rapid.Int64Range(0, int64(2*time.Minute)).Draw(t, "retryAfter"))
		remaining := time.Duration(rapid.Int64Range(-int64(time.Second), int64(2*time.Minute)).Draw(t, "remaining"))
		seed := rapid.Uint64().Draw(t, "seed")

		d, err := NextDelay(p, retry, ra, hasRA, remaining, rand.New(rand.NewPCG(seed, 0)))

		n, bound := p.normalized(), refBound(p, retry)
		required := time.Duration(0)
		if hasRA {
			required = ra
		}
		tooLong := hasRA && ra > n.MaxRetryAfter
		if wantGiveUp := tooLong || required >= remaining; wantGiveUp != (err != nil) {
			t.Fatalf("NextDelay gave up = %v (err %v); want %v", err != nil, err, wantGiveUp)
		}
		switch {
		case err != nil && tooLong:
			if !errors.Is(err, ErrRetryAfterTooLong) || d != 0 {
				t.Fatalf("NextDelay = %s, %v; want 0, ErrRetryAfterTooLong", d, err)
			}
		case err != nil:
			if !errors.Is(err, ErrDeadline) || errors.Is(err, ErrRetryAfterTooLong) != hasRA || d != 0 {
				t.Fatalf("NextDelay = %s, %v; want 0, ErrDeadline (and ErrRetryAfterTooLong iff Retry-After)", d, err)
			}
		case d < 0 || d >= remaining:
			t.Fatalf("NextDelay = %s; want in [0, remaining %s)", d, remaining)
		case !hasRA && d > bound:
			t.Fatalf("NextDelay = %s; want at most the full-jitter bound %s", d, bound)
		case hasRA && d < ra:
			t.Fatalf("NextDelay = %s; want at least Retry-After %s", d, ra)
		case hasRA && d > max(ra, bound):
			t.Fatalf("NextDelay = %s; want at most max(Retry-After %s, bound %s)", d, ra, bound)
		}
	})
}

func TestNextDelay(t *testing.T) {
	t.Parallel()
	p := Policy{Base: 100 * time.Millisecond, Cap: 2 * time.Second, MaxRetryAfter: 30 * time.Second}
	cases := []struct {
		name      string
		ra        time.Duration
		hasRA     bool
		remaining time.Duration
		want      []error // nil: a wait is expected
	}{
		{"backoff", 0, false, time.Second, nil},
		{"backoff, budget spent", 0, false, 0, []error{ErrDeadline}},
		{"backoff, budget negative", 0, false, -time.Second, []error{ErrDeadline}},
		{"Retry-After fits", 5 * time.Second, true, 6 * time.Second, nil},
		{"Retry-After equals remaining", 5 * time.Second, true, 5 * time.Second, []error{ErrDeadline, ErrRetryAfterTooLong}},
		{"Retry-After beyond remaining", 5 * time.Second, true, 4 * time.Second, []error{ErrDeadline, ErrRetryAfterTooLong}},
		{"Retry-After at the limit", 30 * time.Second, true, time.Minute, nil},
		{"Retry-After over the limit", 31 * time.Second, true, time.Hour, []error{ErrRetryAfterTooLong}},
		{"Retry-After huge", time.Duration(math.MaxInt64), true, time.Hour, []error{ErrRetryAfterTooLong}},
		{"Retry-After zero", 0, true, time.Second, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := NextDelay(p, 0, c.ra, c.hasRA, c.remaining, rand.New(rand.NewPCG(1, 2)))
			if c.want == nil {
				if err != nil || d < c.ra || d >= c.remaining {
					t.Fatalf("NextDelay(%s, %v, %s) = %s, %v; want a wait in [%s, %s)", c.ra, c.hasRA, c.remaining, d, err, c.ra, c.remaining)
				}
				return
			}
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("NextDelay(%s, %v, %s) = %s, %v; want an error wrapping %v", c.ra, c.hasRA, c.remaining, d, err, w)
				}
			}
		})
	}
	if _, err := NextDelay(p, 0, 0, false, time.Second, nil); err == nil {
		t.Error("NextDelay with a nil *rand.Rand: want an error")
	}
}

func TestPolicy_Bound(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p     Policy
		retry int
		want  time.Duration
	}{
		{Policy{}, 0, 100 * time.Millisecond},
		{Policy{}, 1, 200 * time.Millisecond},
		{Policy{}, 4, 1600 * time.Millisecond},
		{Policy{}, 5, 2 * time.Second},
		{Policy{}, math.MaxInt, 2 * time.Second},
		{Policy{Base: time.Second, Cap: 500 * time.Millisecond}, 0, 500 * time.Millisecond},
		{Policy{Base: 1, Cap: time.Duration(math.MaxInt64)}, 62, 1 << 62},
		{Policy{Base: 1, Cap: time.Duration(math.MaxInt64)}, 63, time.Duration(math.MaxInt64)},
	}
	for _, c := range cases {
		if got := c.p.Bound(c.retry); got != c.want {
			t.Errorf("%+v.Bound(%d) = %s; want %s", c.p, c.retry, got, c.want)
		}
	}
}

// TestNextDelay_fullJitterUniform checks BO-01's distribution: a
// Kolmogorov–Smirnov test against Uniform(0, bound) at α = 0.01. The seed is
// fixed, so the test is deterministic.
func TestNextDelay_fullJitterUniform(t *testing.T) {
	t.Parallel()
	const n = 2000
	critical := 1.628 / math.Sqrt(n)
	rnd := rand.New(rand.NewPCG(42, 42))
	p := Policy{}
	for _, retry := range []int{0, 1, 3, 6} {
		bound := p.Bound(retry)
		xs := make([]float64, n)
		for i := range xs {
			d, err := NextDelay(p, retry, 0, false, time.Hour, rnd)
			if err != nil {
				t.Fatal(err)
			}
			xs[i] = float64(d) / float64(bound)
		}
		slices.Sort(xs)
		var ks float64
		for i, x := range xs {
			ks = max(ks, math.Abs(float64(i+1)/n-x), math.Abs(x-float64(i)/n))
		}
		if ks > critical {
			t.Errorf("retry %d: KS statistic %.4f > %.4f: delays are not uniform on [0, %s]", retry, ks, critical, bound)
		}
	}
}
