package gateway

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/resilcheck/resilcheck/headers"
)

// policyName names the single quota policy in RateLimit-Policy and RateLimit.
const policyName = "tenant"

// How a token bucket becomes (q, w, r, t), and why it stays truthful.
//
// Each tenant has a rate.Limiter with rate R tokens/s and burst B, but the
// limiter is only ever shown whole Unix seconds: a request at time now is
// charged at floor(now). Tokens are therefore credited in steps of R at each
// second boundary (capped at B) and can only fall between boundaries. With
// that:
//
//   - w = ceil(B/R) seconds (at least 1), the time an empty bucket takes to
//     fill, nudged up to the smallest w ≤ ceil(B/R)+100 where R·w is whole;
//     q = R·w. The long-run admitted rate is exactly q/w = R; by default
//     (50/s, burst 50) the policy is "tenant";q=50;w=1.
//   - r = floor(tokens) after this request is charged. Admission needs one
//     whole token, so the next request is refused exactly when r was 0
//     unless a boundary passed in between.
//   - t = seconds (rounded up) until the first boundary s at which floor(tokens)
//     exceeds r, i.e. until more quota. Before s, r cannot grow, so a
//     sequential client sees r non-increasing within each t; at r = 0, s is
//     when one token exists, so Retry-After = t (RL-09) and a request sent
//     once Retry-After has elapsed is admitted.
//   - X-RateLimit-Remaining = r and X-RateLimit-Reset = s in epoch seconds,
//     which is an integer, so X-Reset − now ∈ (t−1, t] (RL-24).
type quota struct {
	rate   rate.Limit
	burst  int
	q      int64
	window time.Duration
}

func newQuota(perSecond float64, burst int) quota {
	w := max(1, int64(math.Ceil(float64(burst)/perSecond)))
	for c := w; c <= w+100; c++ {
		if x := perSecond * float64(c); math.Abs(x-math.Round(x)) < 1e-9 {
			w = c
			break
		}
	}
	return quota{rate: rate.Limit(perSecond), burst: burst,
		q: max(1, int64(math.Round(perSecond*float64(w)))), window: time.Duration(w) * time.Second}
}

// decision is the outcome of charging one request to a tenant's bucket.
type decision struct {
	allowed   bool
	remaining int64     // whole tokens left after the charge
	reset     time.Time // the boundary at which remaining next grows
	now       time.Time
}

// untilReset is the delay to reset; it is also the 429's Retry-After.
func (d decision) untilReset() time.Duration { return d.reset.Sub(d.now) }

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// limiter holds one bucket per tenant. It is safe for concurrent use.
type limiter struct {
	quota      quota
	maxTenants int

	mu      sync.Mutex
	buckets map[string]*bucket
}

func newLimiter(qt quota, maxTenants int) *limiter {
	return &limiter{quota: qt, maxTenants: maxTenants, buckets: make(map[string]*bucket)}
}

// take charges one request for tenant at now and reports the outcome.
func (l *limiter) take(tenant string, now time.Time) decision {
	step := time.Unix(now.Unix(), 0)
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[tenant]
	if !ok {
		if len(l.buckets) >= l.maxTenants {
			l.evict(step)
		}
		b = &bucket{lim: rate.NewLimiter(l.quota.rate, l.quota.burst)}
		l.buckets[tenant] = b
	}
	b.seen = now
	allowed := b.lim.AllowN(step, 1)
	tokens := b.lim.TokensAt(step)
	r := int64(math.Floor(tokens))
	return decision{allowed: allowed, remaining: r, reset: l.nextCredit(b.lim, step, tokens, r), now: now}
}

// nextCredit returns the first second boundary after step at which the
// bucket holds more than r whole tokens.
func (l *limiter) nextCredit(lim *rate.Limiter, step time.Time, tokens float64, r int64) time.Time {
	if r >= int64(l.quota.burst) {
		return step.Add(time.Second)
	}
	k := max(1, int64(math.Ceil((float64(r+1)-tokens)/float64(l.quota.rate))))
	for math.Floor(lim.TokensAt(step.Add(time.Duration(k)*time.Second))) <= float64(r) {
		k++ // float rounding left the estimate one step short
	}
	return step.Add(time.Duration(k) * time.Second)
}

// evict drops every full bucket (indistinguishable from a new one); if that
// frees nothing useful it drops the least recently seen quarter. Called with
// l.mu held.
func (l *limiter) evict(step time.Time) {
	for k, b := range l.buckets {
		if b.lim.TokensAt(step) >= float64(l.quota.burst) {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) < l.maxTenants {
		return
	}
	keys := make([]string, 0, len(l.buckets))
	for k := range l.buckets {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return l.buckets[a].seen.Compare(l.buckets[b].seen) })
	for _, k := range keys[:len(keys)-l.maxTenants*3/4] {
		delete(l.buckets, k)
	}
}

// tenants reports how many buckets are held.
func (l *limiter) tenants() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// setRateLimitHeaders writes the draft -10 pair and the X-RateLimit-* set;
// advertised is the remaining count to show (the truth unless lying).
func setRateLimitHeaders(h http.Header, qt quota, d decision, advertised int64) {
	h.Set(headers.RateLimitPolicy, headers.FormatRateLimitPolicy(policyName, qt.q, qt.window))
	h.Set(headers.RateLimit, headers.FormatRateLimit(policyName, advertised, d.untilReset()))
	h.Set(headers.XRateLimitLimit, strconv.FormatInt(qt.q, 10))
	h.Set(headers.XRateLimitRemaining, strconv.FormatInt(advertised, 10))
	h.Set(headers.XRateLimitReset, strconv.FormatInt(d.reset.Unix(), 10))
}
