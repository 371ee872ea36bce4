package suites

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// errNoRetryAfter reports a 429 or 503 without the field.
var errNoRetryAfter = errors.New("no Retry-After")

// raSenderValue validates a Retry-After a server sent: delay-seconds
// (1*DIGIT, HS-01) or an HTTP-date in IMF-fixdate, the only form a sender
// may generate (HS-02). The delay is relative to now.
func raSenderValue(v string, now time.Time) (headers.RetryAfter, error) {
	if v == "" {
		return headers.RetryAfter{}, errNoRetryAfter
	}
	ra, err := headers.ParseRetryAfter(v, now)
	switch {
	case err != nil:
		return ra, fmt.Errorf("Retry-After %q is neither delay-seconds nor an HTTP-date (HS-01)", v)
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
// when there is no such field or it names no exhausted policy.
func raReset(h http.Header) (t int64, form string, ok bool) {
	if v := h.Get("RateLimit"); v != "" {
		if strings.Contains(v, "remaining=") || strings.Contains(v, "reset=") {
			d := raParams(v, ",")
			if rem, ok1 := raInt(d["remaining"]); ok1 && rem == 0 {
				t, ok = raInt(d["reset"])
				return t, "RateLimit (draft -07) reset", ok
			}
			return 0, "", false
		}
		return raDraft10Reset(v)
	}
	if rem, ok1 := raInt(h.Get("RateLimit-Remaining")); ok1 && rem == 0 {
		t, ok = raInt(h.Get("RateLimit-Reset"))
		return t, "RateLimit-Reset (draft ≤ -06)", ok
	}
	return 0, "", false
}

// raDraft10Reset reads `"p";r=0;t=1, ...`: the largest t among items with
// r=0; a single item counts as exhausted whatever its r, since the answer
// is a 429.
func raDraft10Reset(v string) (int64, string, bool) {
	items := strings.Split(v, ",")
	found := false
	var best int64
	for _, it := range items {
		p := raParams(it, ";")
		r, rok := raInt(p["r"])
		t, tok := raInt(p["t"])
		if !tok || (len(items) > 1 && (!rok || r != 0)) {
			continue
		}
		found, best = true, max(best, t)
	}
	return best, "RateLimit t (draft -10)", found
}

// raParams splits "k=v<sep>k=v" loosely; keys are lower-cased.
func raParams(s, sep string) map[string]string {
	out := map[string]string{}
	for part := range strings.SplitSeq(s, sep) {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			out[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	return out
}

func raInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0
}
