package main

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// policyName names the one quota policy in RateLimit-Policy and RateLimit.
const policyName = "account"

// limiter is a fixed window of one second per account, aligned to Unix
// seconds: q requests per second, shared by POST /v1/transfers and
// GET /v1/quota. With windows aligned to whole seconds every field is
// exact: r is what is left of this second's q, t is the time to the next
// second (1 once rounded up to delay-seconds), X-RateLimit-Reset that
// second in epoch seconds, and a 429's Retry-After equals t, after which
// the account is admitted again (draft-ietf-httpapi-ratelimit-headers-10
// §3.1, §4.1; RFC 6585 §4). Safe for concurrent use.
type limiter struct {
	q   int64
	brk breakName

	mu      sync.Mutex
	windows map[string]*window   // account → its current window
	banned  map[string]time.Time // the refuses-after-reset break: refused until then
}

type window struct {
	second int64 // Unix second the window started
	used   int64
}

// admission is the outcome of charging one request to an account.
type admission struct {
	allowed   bool
	remaining int64     // what this window still admits, as advertised
	reset     time.Time // the next window's start
	now       time.Time
}

func newLimiter(q int64, brk breakName) *limiter {
	return &limiter{q: q, brk: brk, windows: map[string]*window{}, banned: map[string]time.Time{}}
}

// take charges one request of account at now.
func (l *limiter) take(account string, now time.Time) admission {
	if l.brk == "shared-quota" {
		account = "" // one window for every account
	}
	enforced := l.q
	if l.brk == "enforces-more-than-advertised" {
		enforced = 2 * l.q // the quota was raised in one place and advertised from another
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	sec := now.Unix()
	w, ok := l.windows[account]
	if !ok || w.second != sec {
		w = &window{second: sec}
		l.windows[account] = w
	}
	a := admission{now: now, reset: time.Unix(sec+1, 0)}
	banned := now.Before(l.banned[account])
	if w.used < enforced && !banned {
		w.used++
		a.allowed = true
	} else if l.brk == "refuses-after-reset" && !banned {
		l.banned[account] = now.Add(3 * time.Second) // a penalty the fields do not mention
	}
	a.remaining = max(0, l.q-w.used)
	if banned {
		a.remaining = 0
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
	lim := headers.FormatRateLimit(name, a.remaining, a.reset.Sub(a.now))
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
	h.Set(headers.XRateLimitReset, strconv.FormatInt(a.reset.Unix(), 10))
}

// admit charges the request to account, writes the fields, and answers 429
// when it is refused; it reports whether the request may proceed.
func (s *server) admit(w http.ResponseWriter, account string, probe bool) bool {
	a := s.limits.take(account, time.Now())
	s.limits.setFields(w.Header(), account, a, probe)
	if a.allowed {
		return true
	}
	ra := headers.FormatRetryAfter(a.reset.Sub(a.now))
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
