package suites

import (
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// exhaustedReset is the latest reset t among the limits at r=0.
func exhaustedReset(o rlObs) (time.Duration, bool) {
	var t time.Duration
	found := false
	for _, l := range o.fields.Limits {
		if l.Remaining == 0 && l.HasReset {
			t, found = max(t, l.Reset), true
		}
	}
	return t, found
}

// anyReset is exhaustedReset, or else the latest reset of any limit.
func anyReset(o rlObs) (time.Duration, bool) {
	if t, ok := exhaustedReset(o); ok {
		return t, true
	}
	var t time.Duration
	found := false
	for _, l := range o.fields.Limits {
		if l.HasReset {
			t, found = max(t, l.Reset), true
		}
	}
	return t, found
}

// retryAfter parses the response's Retry-After against its Date (or its
// arrival when it has none), as the ratelimit draft -10 §6 compares them.
func (o rlObs) retryAfter() (headers.RetryAfter, string, error) {
	v := o.header.Get("Retry-After")
	if v == "" {
		return headers.RetryAfter{}, "", nil
	}
	now := o.at
	if !o.date.IsZero() {
		now = o.date
	}
	ra, err := headers.ParseRetryAfter(v, now)
	return ra, v, err
}

// rlObs is one response as the rate-limit checks see it: its fields parsed
// strictly, with the violations kept apart so each check judges its rules.
type rlObs struct {
	sent   time.Time // when the request left (own) or reached the front proxy (journal)
	at     time.Time // when the response headers arrived
	date   time.Time // the response's Date; zero when unknown (journal entries)
	status int
	tenant string
	source string // "own GET /healthz #3" or "journal front-17"
	header http.Header
	body   []byte
	entry  *faults.Entry // the journal entry, for evidence; nil for own replies
	// limited is set for responses of a route the target declares rate limited.
	limited bool

	fields    headers.RateLimitFields
	fieldsErr error
	x         headers.XRateLimit
	xErr      error
}

func observe(h http.Header, at time.Time) rlObs {
	o := rlObs{at: at, header: h}
	o.fields, o.fieldsErr = headers.ParseRateLimitFields(h)
	o.x, o.xErr = headers.ParseXRateLimit(h, at)
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		o.date = d
	}
	return o
}

// advertises reports whether the response carries any IETF field, valid or not.
func (o rlObs) advertises() bool {
	for _, n := range []string{headers.RateLimit, headers.RateLimitPolicy, headers.RateLimitLimit,
		headers.RateLimitRemaining, headers.RateLimitReset} {
		if len(o.header.Values(n)) > 0 {
			return true
		}
	}
	return false
}

// minRemaining is the smallest r over the response's limits and the limit it
// belongs to; ok is false when no limit parsed.
func (o rlObs) minRemaining() (headers.Limit, bool) {
	if len(o.fields.Limits) == 0 {
		return headers.Limit{}, false
	}
	m := o.fields.Limits[0]
	for _, l := range o.fields.Limits[1:] {
		if l.Remaining < m.Remaining {
			m = l
		}
	}
	return m, true
}

// backIn is how long after o its tenant's quota is back by what o says:
// the latest of Retry-After, the RateLimit reset and the legacy reset; 0
// when it says nothing valid.
func (o rlObs) backIn() time.Duration {
	var d time.Duration
	if ra, raw, err := o.retryAfter(); raw != "" && err == nil {
		d = ra.Delay
	}
	if t, ok := anyReset(o); ok {
		d = max(d, t)
	}
	if o.x.HasReset {
		d = max(d, o.x.ResetIn)
	}
	return d
}
