package check

import (
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/headers"
)

// ExhaustedReset is the latest reset t among the limits at r=0.
func exhaustedReset(o Observation) (time.Duration, bool) {
	var t time.Duration
	found := false
	for _, l := range o.Fields.Limits {
		if l.Remaining == 0 && l.HasReset {
			t, found = max(t, l.Reset), true
		}
	}
	return t, found
}

// AnyReset is exhaustedReset, or else the latest reset of any limit.
func AnyReset(o Observation) (time.Duration, bool) {
	if t, ok := exhaustedReset(o); ok {
		return t, true
	}
	var t time.Duration
	found := false
	for _, l := range o.Fields.Limits {
		if l.HasReset {
			t, found = max(t, l.Reset), true
		}
	}
	return t, found
}

// RetryAfter parses the response's Retry-After against its Date (or its
// arrival when it has none), as the ratelimit draft -10 §6 compares them.
func (o Observation) RetryAfter() (headers.RetryAfter, string, error) {
	v := o.Header.Get("Retry-After")
	if v == "" {
		return headers.RetryAfter{}, "", nil
	}
	now := o.At
	if !o.Date.IsZero() {
		now = o.Date
	}
	ra, err := headers.ParseRetryAfter(v, now)
	return ra, v, err
}

// rlObs is one response as the rate-limit checks see it: its fields parsed
// strictly, with the violations kept apart so each check judges its rules.
type Observation struct {
	Sent   time.Time // when the request left (own) or reached the front proxy (journal)
	At     time.Time // when the response headers arrived
	Date   time.Time // the response's Date; zero when unknown (journal entries)
	Status int
	Tenant string
	Source string // "own GET /healthz #3" or "journal front-17"
	Header http.Header
	Body   []byte
	Entry  *faults.Entry // the journal entry, for evidence; nil for own replies
	// Limited is set for responses of a route the target declares rate limited.
	Limited bool

	Fields    headers.RateLimitFields
	FieldsErr error
	X         headers.XRateLimit
	XErr      error
}

func Observe(h http.Header, at time.Time) Observation {
	o := Observation{At: at, Header: h}
	o.Fields, o.FieldsErr = headers.ParseRateLimitFields(h)
	o.X, o.XErr = headers.ParseXRateLimit(h, at)
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		o.Date = d
	}
	return o
}

// Advertises reports whether the response carries any IETF field, valid or not.
func (o Observation) Advertises() bool {
	for _, n := range []string{headers.RateLimit, headers.RateLimitPolicy, headers.RateLimitLimit,
		headers.RateLimitRemaining, headers.RateLimitReset} {
		if len(o.Header.Values(n)) > 0 {
			return true
		}
	}
	return false
}

// MinRemaining is the smallest r over the response's limits and the limit it
// belongs to; ok is false when no limit parsed.
func (o Observation) MinRemaining() (headers.Limit, bool) {
	if len(o.Fields.Limits) == 0 {
		return headers.Limit{}, false
	}
	m := o.Fields.Limits[0]
	for _, l := range o.Fields.Limits[1:] {
		if l.Remaining < m.Remaining {
			m = l
		}
	}
	return m, true
}

// BackIn is how long after o its tenant's quota is back by what o says:
// the latest of Retry-After, the RateLimit reset and the legacy reset; 0
// when it says nothing valid.
func (o Observation) BackIn() time.Duration {
	var d time.Duration
	if ra, raw, err := o.RetryAfter(); raw != "" && err == nil {
		d = ra.Delay
	}
	if t, ok := AnyReset(o); ok {
		d = max(d, t)
	}
	if o.X.HasReset {
		d = max(d, o.X.ResetIn)
	}
	return d
}
