package ratelimit

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/headers"
)

// sequentialRemaining: one client, one request at a time, as fast as it
// can. Between two consecutive responses of one window r must not rise,
// and a response with r>0 promises the next request at least one unit, so
// a 429 right after it shows r overstated (time passing only adds quota).
func sequentialRemaining(ctx context.Context, c *check.Case) check.Result {
	tenant, first, v0, stop := rlFirst(ctx, c)
	if stop != nil {
		return *stop
	}
	budget := int(min(3*v0.r+20, 600))
	deadline := time.Now().Add(3 * time.Second)
	obs := []check.Observation{first}
	refused := 0
	for len(obs) < budget && refused < 3 && time.Now().Before(deadline) {
		o, err := rlProbe(ctx, c, tenant)
		if err != nil {
			return check.Inconclusive("request %d failed: %v", len(obs)+1, err)
		}
		obs = append(obs, o)
		if o.Status == http.StatusTooManyRequests {
			refused++
		}
	}
	if v0.legacy {
		more, err := pacedAcrossReset(ctx, c, tenant, first)
		if err != nil {
			return check.Inconclusive("paced request failed: %v", err)
		}
		obs = append(obs, more...)
	}
	countsRequests := true
	if l0, ok := first.MinRemaining(); ok {
		if p, ok := policyOf(first.Fields, l0); ok && p.Unit != headers.UnitRequests {
			countsRequests = false
		}
	}
	bad := judgeSequence(obs, countsRequests)
	want := "r ≥ 0; r non-increasing between responses with the same advertised reset; no 429 right after r>0"
	if v0.legacy {
		want = "the legacy fields alone (no RateLimit field): " + first.X.Prefix + "Remaining" + first.X.Window +
			" non-increasing between responses with the same " + first.X.Prefix + "Reset instant; no 429 right after it was > 0"
	}
	got := fmt.Sprintf("%d sequential requests, %d refused, r first %d, last %d", len(obs), refused, v0.r, lastRemaining(obs))
	if refused == 0 {
		got += " (the quota was not reached, so the no-429-after-r>0 rule was not exercised)"
	}
	if len(bad) > 0 {
		r := check.Fail(want, got+"; "+bad[0], c.Evidence()...)
		r.Counterexample = bad[:min(len(bad), maxCounterexamples)]
		return r
	}
	return check.Pass(want, got, c.Evidence()...)
}

// rlFirst sends a fresh rate-limit tenant's first request and reads the
// quota left from it; stop is the result to end the check with when the
// request failed or advertises no readable remaining.
func rlFirst(ctx context.Context, c *check.Case) (tenant string, first check.Observation, v0 quotaView, stop *check.Result) {
	tenant = rlTenant(ctx, c)
	first, err := rlProbe(ctx, c, tenant)
	switch {
	case err != nil:
		r := check.Inconclusive("first request failed: %v", err)
		return tenant, first, v0, &r
	case !first.Advertises() && !first.X.HasRemaining:
		r := check.NotApplicable("the target sends neither RateLimit nor X-RateLimit-Remaining fields")
		return tenant, first, v0, &r
	}
	v0, ok := quotaLeft(first)
	if !ok {
		r := check.NotApplicable("RateLimit did not parse (RL-07 reports it): %v", first.FieldsErr)
		return tenant, first, v0, &r
	}
	return tenant, first, v0, nil
}

func judgeSequence(obs []check.Observation, countsRequests bool) []string {
	var bad []string
	for i := 1; i < len(obs); i++ {
		prev, cur := obs[i-1], obs[i]
		if msg := ruleViolations(cur, "RL-07", headers.RateLimit, headers.RateLimitRemaining); msg != "" {
			bad = append(bad, fmt.Sprintf("request %d: %s", i+1, msg))
			continue
		}
		pv, okP := quotaLeft(prev)
		cv, okC := quotaLeft(cur)
		if !okP || !okC {
			continue
		}
		if sameWindow(pv, cur, cv) && cv.r > pv.r {
			bad = append(bad, fmt.Sprintf("request %d: r rose from %d to %d before the reset at %s", i+1, pv.r, cv.r, pv.end.UTC().Format(time.TimeOnly)))
		}
		if countsRequests && prev.Status != http.StatusTooManyRequests && pv.r > 0 && cur.Status == http.StatusTooManyRequests {
			bad = append(bad, fmt.Sprintf("request %d: 429 right after a %d that advertised r=%d", i+1, prev.Status, pv.r))
		}
	}
	return bad
}

// windowEnd is the instant a response says its window resets, and
// whether it is exact: the legacy epoch reset when there is one, else
// Date + t, known only to within a second either way (Date is truncated to
// the second and t rounded up); zero when unknown.
func windowEnd(o check.Observation, l headers.Limit) (time.Time, bool) {
	if o.X.HasReset && (o.X.ResetKind == headers.ResetEpochSeconds || o.X.ResetKind == headers.ResetEpochMillis) {
		return o.X.ResetAt, true
	}
	if o.Date.IsZero() || !l.HasReset {
		return time.Time{}, false
	}
	return o.Date.Add(l.Reset), false
}

// sameWindow says whether cur certainly came within the window prev
// advertised: both name one reset instant, and either it is exact or cur's
// Date is a second or more before what Date + t allows as that window's
// earliest end. Two windows of an unaligned limiter can show one Date + t.
func sameWindow(pv quotaView, cur check.Observation, cv quotaView) bool {
	switch {
	case pv.end.IsZero() || !pv.end.Equal(cv.end):
		return false
	case pv.exact && cv.exact:
		return true
	}
	return !cur.Date.IsZero() && !cur.Date.Add(time.Second).After(pv.end.Add(-time.Second))
}

func lastRemaining(obs []check.Observation) int64 {
	for i := len(obs) - 1; i >= 0; i-- {
		if v, ok := quotaLeft(obs[i]); ok {
			return v.r
		}
	}
	return -1
}

// quotaView is what one response says about the quota left: r, and the
// instant its window resets (zero when unknown).
type quotaView struct {
	r      int64
	end    time.Time
	exact  bool // end is an epoch reset, not Date + t
	legacy bool // read from X-RateLimit-* alone
}

// quotaLeft reads the RateLimit fields when the response carries any, else
// the legacy X-RateLimit-Remaining, with X-RateLimit-Reset as the window's
// end when it names an instant (a delay in whole seconds cannot tell two
// one-second windows apart).
func quotaLeft(o check.Observation) (quotaView, bool) {
	if o.Advertises() {
		l, ok := o.MinRemaining()
		end, exact := windowEnd(o, l)
		return quotaView{r: l.Remaining, end: end, exact: exact}, ok
	}
	if !o.X.HasRemaining {
		return quotaView{}, false
	}
	v := quotaView{r: o.X.Remaining, legacy: true}
	if o.X.HasReset && o.X.ResetKind != headers.ResetDeltaSeconds {
		v.end, v.exact = o.X.ResetAt, true
	}
	return v, true
}

// pacedAcrossReset follows a legacy-only sequence into the next window:
// requests at 2.5 × w/q (X-RateLimit-Limit, w as legacyPolicy infers it)
// for two windows (3 s at most). A fixed window's remaining only falls
// within it; a sliding window's estimate rises as the spent window's
// weight decays, which a back-to-back burst never shows.
func pacedAcrossReset(ctx context.Context, c *check.Case, tenant string, first check.Observation) ([]check.Observation, error) {
	p, ok := legacyPolicyOf(ctx, c, tenant, first)
	if !ok {
		return nil, nil
	}
	gap := time.Duration(2.5 * float64(p.Window) / float64(p.Quota))
	end := time.Now().Add(min(2*p.Window, 3*time.Second))
	var out []check.Observation
	for time.Now().Add(gap).Before(end) && len(out) < 100 {
		check.Sleep(ctx, gap)
		o, err := rlProbe(ctx, c, tenant)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
	return out, ctx.Err()
}
