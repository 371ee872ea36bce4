package amplification

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// waits draws n waits from f, in milliseconds, with the positive noise a
// target's own processing adds.
func waits(r *rand.Rand, n int, f func() float64) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration((f() + r.Float64()*2) * float64(time.Millisecond))
	}
	return out
}

func TestStats(t *testing.T) {
	t.Parallel()
	xs := []float64{1, 2, 3, 4}
	if q := quantile(xs, 0.5); q != 2.5 {
		t.Errorf("median %v", q)
	}
	if m := maxInWindow([]float64{0, 1, 9.9, 10, 30}, 10); m != 3 {
		t.Errorf("maxInWindow %d, want 3", m)
	}
	if s := shareOutside([]float64{-1, 0, 5, 11}, 0, 10); s != 0.5 {
		t.Errorf("shareOutside %v", s)
	}
	if d := ksUniform([]float64{50, 50, 50}, 0, 50); d < 0.99 {
		t.Errorf("KS of a point mass at the top: %v, want ~1", d)
	}
	if c := ksCritical(40); c < 0.33 || c > 0.35 {
		t.Errorf("critical value for 40: %v", c)
	}
	if f := nearFloor([]float64{50, 51, 52, 70}, 10); f != 0.75 {
		t.Errorf("nearFloor %v", f)
	}
	if d := check.CeilFor(50*time.Millisecond, time.Second, 10); d != time.Second {
		t.Errorf("ceilFor capped %v", d)
	}
}

// TestBackoffJudges proves each backoff verdict can fail: the same judges
// that pass full jitter fail lockstep, a wrong profile or a wrong range.
func TestBackoffJudges(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	full := func(hi float64) func() float64 { return func() float64 { return r.Float64() * hi } }
	fixed := func(v float64) func() float64 { return func() float64 { return v } }
	equal := func(hi float64) func() float64 { return func() float64 { return hi/2 + r.Float64()*hi/2 } }
	sample := func(f0, f1 func() float64) *backoffSample {
		s := &backoffSample{rounds: 21}
		s.waits[0], s.waits[1] = waits(r, 56, f0), waits(r, 28, f1)
		s.fleets = s.waits[0][:28]
		for i := range 28 {
			s.chains = append(s.chains, []time.Duration{s.waits[0][i], s.waits[1][i]})
		}
		return s
	}
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{Backoff: "full", Base: 50 * time.Millisecond, Cap: time.Second}}}
	cases := []struct {
		name    string
		s       *backoffSample
		profile string
		bo, rb  reports.Status // uniform-formula and RB-15 verdicts
	}{
		{"full jitter", sample(full(50), full(100)), "full", reports.StatusPass, reports.StatusPass},
		{"no jitter", sample(fixed(50), fixed(100)), "full", reports.StatusFail, reports.StatusFail},
		{"full jitter judged as equal", sample(full(50), full(100)), "equal", reports.StatusFail, reports.StatusPass},
		{"equal jitter", sample(equal(50), equal(100)), "equal", reports.StatusPass, reports.StatusPass},
		// 28 second waits let both the formula's KS test and RB-15's growth
		// test tell U[0, 50] from U[0, 100].
		{"full jitter, no growth", sample(full(50), full(50)), "full", reports.StatusFail, reports.StatusFail},
	}
	for _, c := range cases {
		if got := judgeUniform(h, c.s, c.profile).Status; got != c.bo {
			t.Errorf("%s: %s verdict %s, want %s", c.name, c.profile, got, c.bo)
		}
		if got := judgeRandomized(h, c.s).Status; got != c.rb {
			t.Errorf("%s: RB-15 verdict %s, want %s", c.name, got, c.rb)
		}
	}

	// Too few second waits: growth is not judged (a pass on dispersion that
	// says so), never a coin-flip failure.
	few := sample(full(50), full(50))
	few.waits[1] = few.waits[1][:minGrowthWaits-1]
	if res := judgeRandomized(h, few); res.Status != reports.StatusPass || !strings.Contains(res.Observed, "growth not judged") {
		t.Errorf("few second waits: %s %q, want a pass saying growth was not judged", res.Status, res.Observed)
	}

	// A pass whose waits crowd the band (60 % fixed, the rest jittered:
	// lockstep a stall may have spread) bears no stall longer than the
	// band; a jittered pass bears any.
	i := 0
	crowded := func(hi float64) func() float64 {
		return func() float64 {
			if i++; i%5 < 3 {
				return hi
			}
			return hi * (1 + r.Float64())
		}
	}
	if res := judgeRandomized(h, sample(crowded(500), crowded(1000))); res.Status != reports.StatusPass || res.Quiet <= 0 || res.Quiet > h.Slack() {
		t.Errorf("crowded waits: %s, Quiet %s; want a pass bearing a stall of at most the band (%s)", res.Status, res.Quiet, h.Slack()/2)
	}
	if res := judgeRandomized(h, sample(full(50), full(100))); res.Quiet != 0 {
		t.Errorf("full jitter: Quiet %s; want 0", res.Quiet)
	}

	// Decorrelated: d₀ ∈ [base, 3·base], dₙ ∈ [base, 3·dₙ₋₁].
	dec := &backoffSample{}
	for range 20 {
		d0 := 50 + r.Float64()*(3*50-50)
		d1 := 50 + r.Float64()*(3*d0-50)
		dec.chains = append(dec.chains, []time.Duration{time.Duration(d0 * float64(time.Millisecond)), time.Duration(d1 * float64(time.Millisecond))})
	}
	if got := judgeDecorrelated(h, dec).Status; got != reports.StatusPass {
		t.Errorf("decorrelated jitter: %s", got)
	}
	if got := judgeDecorrelated(h, sample(full(50), full(100))).Status; got != reports.StatusFail {
		t.Errorf("full jitter judged as decorrelated: %s, want fail (waits below base)", got)
	}

	// BO-08: lockstep fleets fail, jittered ones pass.
	if got := judgeFleet(h, sample(fixed(50), fixed(100))).Status; got != reports.StatusFail {
		t.Errorf("lockstep fleet: %s", got)
	}
	if got := judgeFleet(h, sample(full(50), full(100))).Status; got != reports.StatusPass {
		t.Errorf("jittered fleet: %s", got)
	}
}

// TestBackoffJudges_FalseAlarms estimates how often the lockstep judges
// fail a correctly jittered target with the default sample sizes.
func TestBackoffJudges_FalseAlarms(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{Backoff: "full", Base: 50 * time.Millisecond, Cap: time.Second}}}
	const runs = 3000
	var rb, bo, fleet int
	for range runs {
		s := &backoffSample{rounds: 21}
		s.waits[0] = waits(r, 56, func() float64 { return r.Float64() * 50 })
		// The fewest second waits growth is judged on: the worst case.
		s.waits[1] = waits(r, minGrowthWaits, func() float64 { return r.Float64() * 100 })
		s.fleets = s.waits[0][:16] // the smallest fleet BO-08 judges
		if judgeRandomized(h, s).Status != reports.StatusPass {
			rb++
		}
		if judgeUniform(h, s, "full").Status != reports.StatusPass {
			bo++
		}
		if judgeFleet(h, s).Status != reports.StatusPass {
			fleet++
		}
	}
	// Each judge errs in about 2 runs in 10⁴ or less; RB-15's growth test,
	// judged on 20 second waits or more, in about 4 in 10⁶.
	if rb > 0 || fleet > 2 || bo > 3 {
		t.Errorf("false alarms in %d runs: RB-15 %d, BO-08 %d, BO-01 %d", runs, rb, fleet, bo)
	}
	t.Logf("false alarms in %d runs: RB-15 %d, BO-08 %d, BO-01 %d", runs, rb, fleet, bo)

	// got's backoff (1 s, then 2 s, plus noise uniform in [0, 100 ms)),
	// declared as exponential with ±10 % jitter as fastify-orders does:
	// dispersed. A failure stands only when a second sample repeats it, so
	// a per-sample rate p fails got in p² of runs: under 10⁻⁴ on the fewest
	// waits judged, far less on the 14–16 a certification takes.
	h = &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{Backoff: "exponential", Base: time.Second, Cap: 2 * time.Second, Jitter: 0.1}}}
	for _, n := range []int{minWaits, 14} {
		var additive int
		for range runs {
			s := &backoffSample{rounds: n}
			s.waits[0] = waits(r, n, func() float64 { return 1000 + 100*r.Float64() })
			s.waits[1] = waits(r, n, func() float64 { return 2000 + 100*r.Float64() })
			if judgeRandomized(h, s).Status != reports.StatusPass {
				additive++
			}
		}
		t.Logf("RB-15 failed [0, 100 ms) additive noise on %d waits in %d of %d samples", n, additive, runs)
		if 100*additive > runs {
			t.Errorf("RB-15 failed [0, 100 ms) additive noise on %d waits in %d of %d samples, want under 1 %%", n, additive, runs)
		}
	}
}

// TestOutage_unfelt: a run judges its outage only when the outage failed
// at least one dependency call while it lasted; calls that all came after
// it, or none at all, leave nothing to judge.
func TestOutage_unfelt(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	at := func(ms int, rule string) faults.Entry {
		return faults.Entry{Received: t0.Add(time.Duration(ms) * time.Millisecond), Rule: rule}
	}
	from, to := t0, t0.Add(time.Second)
	for _, tc := range []struct {
		name  string
		calls []faults.Entry
		felt  bool
	}{
		{"a call failed", []faults.Entry{at(10, ""), at(20, "outage")}, true},
		{"every call after the outage", []faults.Entry{at(1100, ""), at(1200, "")}, false},
		{"calls passed during it", []faults.Entry{at(10, ""), at(20, "")}, false},
		{"no call", nil, false},
		{"a failed call before it", []faults.Entry{at(-10, "outage")}, false},
	} {
		o := &outage{kind: "503", calls: tc.calls}
		r := o.unfelt(from, to)
		if (r == nil) != tc.felt {
			t.Errorf("%s: unfelt = %+v; want felt %v", tc.name, r, tc.felt)
		}
		if r != nil && r.Noisy != (len(tc.calls) > 0) {
			t.Errorf("%s: noisy %v (%s); want judged again only when calls came", tc.name, r.Noisy, r.Reason)
		}
	}
}

// TestBackoffJudges_calm: RB-15 and BO-08 judge on the waits no stall of
// the runner spread, when enough were. Fixed waits a stall spread in
// every other round still fail, on the others, whatever the runner did
// there; jittered waits a stall stamped together at the floor in every
// other round pass, trusted from any run (Quiet 0), where judged on every
// wait they crowd the band and the pass would rest on the runner. Too few
// calm waits leave the judges as they were: crowded waits pass on every
// wait, trusted only from a run that stalls less than the band (Quiet).
func TestBackoffJudges_calm(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	h := &check.Harness{Policy: check.Policy{Retry: check.RetryPolicy{Backoff: "full", Base: 50 * time.Millisecond, Cap: time.Second}}}
	t0 := time.Unix(1_700_000_000, 0)
	// sample puts wait k of retry i at second 1000·i + k; the runner
	// stalled 100 ms in the waits stalled says, which disturb rewrites,
	// and a millisecond, the watch's resolution, in the others.
	sample := func(w0, w1 func() float64, stalled func(k int) bool, disturb func(i int, w time.Duration) time.Duration) *backoffSample {
		s := &backoffSample{rounds: 21, resolution: time.Millisecond}
		s.waits[0], s.waits[1] = waits(r, 56, w0), waits(r, 28, w1)
		late := map[time.Time]bool{}
		for i := range s.waits {
			for k := range s.waits[i] {
				from := t0.Add(time.Duration(1000*i+k) * time.Second)
				if stalled(k) {
					s.waits[i][k] = disturb(i, s.waits[i][k])
					late[from] = true
				}
				s.waitSpans[i] = append(s.waitSpans[i], check.Span{From: from, To: from.Add(s.waits[i][k])})
			}
		}
		s.fleets, s.fleetSpans = s.waits[0], s.waitSpans[0]
		s.stalled = func(from, to time.Time) time.Duration {
			if !from.Before(to) {
				t.Errorf("stalls asked for over %s..%s", from, to)
			}
			if late[from] {
				return 100 * time.Millisecond
			}
			return time.Millisecond
		}
		return s
	}
	fixed := func(v float64) func() float64 { return func() float64 { return v } }
	equal := func(hi float64) func() float64 { return func() float64 { return hi/2 + r.Float64()*hi/2 } }
	// crowded waits: every other one fixed at hi, the rest jittered above
	// it, so about 60 % lie within the band: above the share that makes a
	// pass suspect, below the one that fails.
	crowded := func(hi float64) func() float64 {
		n := 0
		return func() float64 {
			if n++; n%2 == 0 {
				return hi
			}
			return hi * (1 + r.Float64())
		}
	}
	spread := func(_ int, w time.Duration) time.Duration { return w + time.Duration(r.IntN(100))*time.Millisecond }
	atFloor := func(i int, _ time.Duration) time.Duration { return time.Duration(25*(i+1)) * time.Millisecond }
	same := func(_ int, w time.Duration) time.Duration { return w }
	odd := func(k int) bool { return k%2 == 1 }
	most := func(k int) bool { return k%8 != 0 }
	for _, tc := range []struct {
		name   string
		s      *backoffSample
		status reports.Status
		quiet  bool // a pass trusted only from a run quieter than Quiet
	}{
		{"fixed waits, every other spread", sample(fixed(50), fixed(100), odd, spread), reports.StatusFail, false},
		{"jittered waits, every other stamped at the floor", sample(equal(50), equal(100), odd, atFloor), reports.StatusPass, false},
		{"crowded waits, too few calm", sample(crowded(25), crowded(50), most, same), reports.StatusPass, true},
	} {
		for name, judge := range map[string]func(*check.Harness, *backoffSample) check.Result{"RB-15": judgeRandomized, "BO-08": judgeFleet} {
			res := judge(h, tc.s)
			switch {
			case res.Status != tc.status:
				t.Errorf("%s, %s: %s (%s%s), want %s", tc.name, name, res.Status, res.Observed, res.Reason, tc.status)
			case res.Status == reports.StatusFail && res.Margin != check.NotTimed:
				t.Errorf("%s, %s: a failure on calm waits with Margin %s, want untimed", tc.name, name, res.Margin)
			case res.Status == reports.StatusPass && (res.Quiet > 0) != tc.quiet:
				t.Errorf("%s, %s: Quiet %s (%s), want a pass trusted only from a quieter run: %v", tc.name, name, res.Quiet, res.Observed, tc.quiet)
			}
		}
	}
}
