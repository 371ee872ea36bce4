package main

import (
	"encoding/base64"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/resilcheck/resilcheck/headers"
)

// policyName names the one quota policy in RateLimit-Policy and RateLimit.
const policyName = "account"

// limiter is a token bucket per account (golang.org/x/time/rate): q
// tokens per second, at most q held, one per request, shared by
// POST /v1/transfers and GET /v1/quota; advertised as the policy q per
// w=1 s (draft-ietf-httpapi-ratelimit-headers-10 §3.1). r is the whole
// tokens left; the reset is the instant the bucket is full again, as t
// (delay-seconds, rounded up) and as X-RateLimit-Reset in epoch
// milliseconds, so every admitted request moves it 1/q later and r never
// rises before it; a 429's Retry-After is the wait for the next token,
// rounded up (RFC 6585 §4). Refilling continuously rather than in steps,
// an account drained by one client admits q per second again at once,
// whatever drained it. Safe for concurrent use.
type limiter struct {
	q   int64
	brk breakName

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	banned  map[string]time.Time // the refuses-after-reset break: refused until then
}

// admission is the outcome of charging one request to an account.
type admission struct {
	allowed   bool
	remaining int64     // whole tokens left, as advertised
	full      time.Time // when the bucket holds q tokens again
	next      time.Time // when it holds one token (a refusal's Retry-After)
	now       time.Time
}

func newLimiter(q int64, brk breakName) *limiter {
	return &limiter{q: q, brk: brk, buckets: map[string]*rate.Limiter{}, banned: map[string]time.Time{}}
}

// take charges one request of account at now.
func (l *limiter) take(account string, now time.Time) admission {
	if l.brk == "shared-quota" {
		account = "" // one bucket for every account
	}
	per := float64(l.q)
	if l.brk == "enforces-more-than-advertised" {
		per *= 2 // the quota was raised in one place and advertised from another
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[account]
	if !ok {
		b = rate.NewLimiter(rate.Limit(per), int(per))
		l.buckets[account] = b
	}
	banned := now.Before(l.banned[account])
	a := admission{now: now, allowed: !banned && b.AllowN(now, 1)}
	if !a.allowed && !banned && l.brk == "refuses-after-reset" {
		l.banned[account] = now.Add(3 * time.Second) // a penalty the fields do not mention
	}
	tokens := b.TokensAt(now)
	a.remaining = min(l.q, int64(math.Floor(tokens)))
	if banned {
		a.remaining = 0
	}
	a.full = now.Add(time.Duration((per - tokens) / per * float64(time.Second)))
	a.next = now.Add(time.Duration(max(0, 1-tokens) / per * float64(time.Second)))
	if banned {
		// The ban withholds the tokens the bucket refilled: its refusals
		// say remaining 0 and wait for the reset (never "Retry-After: 0"
		// beside t=1), and keep quiet about the rest of the penalty.
		a.next = a.full
	}
	return a
}

// setFields writes RateLimit-Policy and RateLimit (draft -10) and the
// legacy X-RateLimit-* set describing the same quota.
// probe says the response is GET /v1/quota's.
func (l *limiter) setFields(h http.Header, account string, a admission, probe bool) {
	name, w := policyName, time.Second
	switch {
	case l.brk == "policy-differs-by-route" && probe:
		name = "quota" // the probe's handler names the same quota its own way
	case l.brk == "window-in-minutes":
		w = time.Minute // the window advertised in the wrong unit
	}
	pol := headers.FormatRateLimitPolicy(name, l.q, w)
	if l.brk == "window-zero" {
		pol = strconv.Quote(name) + ";q=" + strconv.FormatInt(l.q, 10) + ";w=0" // the window in whole minutes, rounded down
	}
	lim := headers.FormatRateLimit(name, a.remaining, a.full.Sub(a.now))
	pk := ";pk=:" + base64.StdEncoding.EncodeToString([]byte(account)) + ":"
	switch l.brk {
	case "unregistered-unit":
		pol += `;qu="calls"`
	case "pk-not-bytes":
		pk = ";pk=" + strconv.Quote(account)
	}
	h.Set(headers.RateLimitPolicy, pol+pk)
	h.Set(headers.RateLimit, lim+pk)
	limit := strconv.FormatInt(l.q, 10)
	switch l.brk {
	case "legacy-malformed":
		limit += ", " + limit + ";w=1" // draft -00's quota-policy form in a legacy field
	case "legacy-disagrees":
		limit = strconv.FormatInt(60*l.q, 10) // left over from a per-minute quota
	}
	h.Set(headers.XRateLimitLimit, limit)
	h.Set(headers.XRateLimitRemaining, strconv.FormatInt(a.remaining, 10))
	h.Set(headers.XRateLimitReset, strconv.FormatInt(a.full.UnixMilli(), 10))
}

// admit charges the request to account, writes the fields, and answers 429
// when it is refused; it reports whether the request may proceed.
func (s *server) admit(w http.ResponseWriter, account string, probe bool) bool {
	a := s.limits.take(account, time.Now())
	s.limits.setFields(w.Header(), account, a, probe)
	if a.allowed {
		return true
	}
	ra := headers.FormatRetryAfter(a.next.Sub(a.now))
	if s.cfg.brk == "lying-retry-after" {
		ra = "0"
	}
	w.Header().Set("Retry-After", ra)
	if s.cfg.brk == "empty-429" {
		w.WriteHeader(http.StatusTooManyRequests)
		return false
	}
	problem(w, http.StatusTooManyRequests, "quota-exceeded",
		"the account's quota of "+strconv.FormatInt(s.limits.q, 10)+" requests per second is used up; retry after the reset")
	return false
}

// quota answers the caller's remaining quota, charging the request like
// any other: GET /v1/quota with X-Account naming a known account. It takes
// no credential because resilcheck's rate-limit probe sends only the tenant
// header (policy.rate_limits.probe).
func (s *server) quota(w http.ResponseWriter, r *http.Request) {
	account := r.Header.Get(accountHeader)
	if !slices.Contains(s.cfg.accounts, account) {
		problem(w, http.StatusForbidden, "unknown-account", accountHeader+" must name a known account")
		return
	}
	if !s.admit(w, account, true) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"account": ` + strconv.Quote(account) + `, "remaining": ` + w.Header().Get(headers.XRateLimitRemaining) + `}`))
}
