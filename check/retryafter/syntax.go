package retryafter

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// errNoRetryAfter reports a 429 or 503 without the field.
var errNoRetryAfter = errors.New("no Retry-After")

// raSenderValue validates a Retry-After a server sent: delay-seconds
// (1*DIGIT, HS-01) or an HTTP-date in IMF-fixdate, the only form a sender
// may generate (HS-02). The delay is relative to now. A negative value is a
// syntax error; one beyond headers.MaxDelay (2³¹−1 s) is one a client holding
// it in a 32-bit integer reads wrapped, so it fails HS-01 too.
func raSenderValue(v string, now time.Time) (headers.RetryAfter, error) {
	if v == "" {
		return headers.RetryAfter{}, errNoRetryAfter
	}
	ra, err := headers.ParseRetryAfter(v, now)
	switch {
	case err != nil:
		return ra, fmt.Errorf("Retry-After %q is neither delay-seconds nor an HTTP-date (HS-01)", v)
	case ra.Clamped:
		return ra, fmt.Errorf("Retry-After %q is beyond %d s: an overflowed value, which a client holding it in 32 bits reads wrapped (HS-01)", v, headers.MaxDelay/time.Second)
	case ra.Date && ra.Form != "IMF-fixdate":
		return ra, fmt.Errorf("Retry-After %q is an HTTP-date in the obsolete %s form; senders must generate IMF-fixdate (HS-02)", v, ra.Form)
	}
	return ra, nil
}

// raResponseNow is the instant a server's HTTP-date is relative to: its
// Date field when valid, else when the answer arrived.
func raResponseNow(h http.Header, received time.Time) time.Time {
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		return d
	}
	return received
}

// raReset is the reset a response's rate-limit fields advertise for the
// exhausted policy, in whole seconds, and which syntax said so. ok is false
// when there is no such field or it names no exhausted policy. A lone draft
// -10 item counts as exhausted whatever its r, since the answer is a 429;
// the older single-policy forms must say remaining 0.
func raReset(h http.Header) (t int64, form string, ok bool) {
	f, _ := headers.ParseRateLimitFields(h) // what parsed cleanly is still returned
	var best time.Duration
	for _, l := range f.Limits {
		lone := len(f.Limits) == 1 && l.Form == headers.FormDraft10
		if !l.HasReset || (!lone && l.Remaining != 0) {
			continue
		}
		ok, best = true, max(best, l.Reset)
	}
	return int64(best / time.Second), "RateLimit reset (" + string(f.Form) + ")", ok
}
