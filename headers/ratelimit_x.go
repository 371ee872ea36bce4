package headers

import (
	"net/http"
	"strconv"
	"time"
)

// ResetKind is how an X-RateLimit-Reset value was read (check RL-22).
type ResetKind string

// The RL-22 interpretations, in the order the heuristic tries them.
const (
	ResetEpochMillis  ResetKind = "epoch-milliseconds" // integer ≥ 10¹²
	ResetEpochSeconds ResetKind = "epoch-seconds"      // integer ≥ 10⁹
	ResetDeltaSeconds ResetKind = "delta-seconds"      // smaller integers
	ResetHTTPDate     ResetKind = "http-date"          // any RFC 9110 HTTP-date form
	ResetRFC3339      ResetKind = "rfc3339"
)

// XRateLimit is what the legacy X-RateLimit-* (or X-Rate-Limit-*) fields say.
// Has* tell which fields were present; the zero value means none were.
type XRateLimit struct {
	Prefix string // "X-RateLimit-" or "X-Rate-Limit-"; "" when no field was present
	Window string // a window suffix such as "-Minute" (RL-22), "" for the plain names

	Limit, Remaining, Used          int64
	HasLimit, HasRemaining, HasUsed bool

	HasReset  bool
	ResetKind ResetKind
	ResetAt   time.Time     // the instant of the reset
	ResetIn   time.Duration // ResetAt − now within ±MaxDelay; negative for a reset in the past
}

// Present reports whether any legacy field was found.
func (x XRateLimit) Present() bool { return x.Prefix != "" }

var (
	xPrefixes = []string{"X-RateLimit-", "X-Rate-Limit-"}
	xWindows  = []string{"", "-Second", "-Minute", "-Hour", "-Day"}
)

// ParseXRateLimit reads the legacy fields from h: the first spelling
// (X-RateLimit-*, then X-Rate-Limit-*) and window suffix (none, then
// -Second … -Day) that has any of Limit, Remaining, Reset. Limit, Remaining
// and Used are 1*DIGIT; Reset is read per RL-22 and converted with now. An
// invalid or repeated value is a *FieldError (rule RL-22).
func ParseXRateLimit(h http.Header, now time.Time) (XRateLimit, error) {
	for _, p := range xPrefixes {
		for _, w := range xWindows {
			if h.Get(p+"Limit"+w) == "" && h.Get(p+"Remaining"+w) == "" && h.Get(p+"Reset"+w) == "" {
				continue
			}
			return parseX(h, p, w, now)
		}
	}
	return XRateLimit{}, nil
}

func parseX(h http.Header, prefix, window string, now time.Time) (XRateLimit, error) {
	x := XRateLimit{Prefix: prefix, Window: window}
	vs := &violations{}
	count := func(name string, dst *int64, has *bool) {
		v, ok := single(h, prefix+name+window, vs)
		if !ok {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if !isDigits(v) || err != nil {
			vs.add("RL-22", "not a non-negative integer")
			return
		}
		*dst, *has = n, true
	}
	count("Limit", &x.Limit, &x.HasLimit)
	count("Remaining", &x.Remaining, &x.HasRemaining)
	count("Used", &x.Used, &x.HasUsed)
	if v, ok := single(h, prefix+"Reset"+window, vs); ok {
		if at, kind, ok := readReset(v, now); ok {
			x.HasReset, x.ResetKind, x.ResetAt = true, kind, at
			x.ResetIn = max(min(at.Sub(now), MaxDelay), -MaxDelay)
		} else {
			vs.add("RL-22", "neither an integer (delta, epoch s or ms) nor an HTTP-date or RFC 3339 date")
		}
	}
	return x, vs.err()
}

// single returns the one value of name; several lines are a violation.
func single(h http.Header, name string, vs *violations) (string, bool) {
	vals := h.Values(name)
	if len(vals) == 0 {
		return "", false
	}
	vs.field, vs.value = name, vals[0]
	if len(vals) > 1 {
		vs.add("RL-22", "sent %d times", len(vals))
		return "", false
	}
	return vals[0], true
}

// readReset applies the RL-22 disambiguation.
func readReset(v string, now time.Time) (time.Time, ResetKind, bool) {
	if isDigits(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			return time.Time{}, "", false
		case n >= 1e12:
			return time.UnixMilli(n), ResetEpochMillis, true
		case n >= 1e9:
			return time.Unix(n, 0), ResetEpochSeconds, true
		}
		return now.Add(time.Duration(n) * time.Second), ResetDeltaSeconds, true
	}
	for _, layout := range []string{IMFFixdate, RFC850Date, ASCTimeDate} {
		if t, err := time.Parse(layout, v); err == nil {
			if layout == RFC850Date {
				t = fixTwoDigitYear(t, now)
			}
			return t, ResetHTTPDate, true
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, ResetRFC3339, true
	}
	return time.Time{}, "", false
}
