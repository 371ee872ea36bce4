package headers

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The three HTTP-date forms RFC 9110 §5.6.7 obliges a recipient to accept.
const (
	IMFFixdate  = http.TimeFormat                  // Sun, 06 Nov 1994 08:49:37 GMT
	RFC850Date  = "Monday, 02-Jan-06 15:04:05 GMT" // Sunday, 06-Nov-94 08:49:37 GMT
	ASCTimeDate = "Mon Jan _2 15:04:05 2006"       // Sun Nov  6 08:49:37 1994
)

// RetryAfter is a parsed Retry-After value.
type RetryAfter struct {
	Delay time.Duration // wait from the moment the response was received; never negative
	Date  bool          // the value was an HTTP-date rather than delay-seconds
	Form  string        // "delay-seconds", "IMF-fixdate", "rfc850" or "asctime"
	// Clamped is set when the value was above MaxDelay; Delay is then MaxDelay.
	Clamped bool
}

// ParseRetryAfter parses a Retry-After value as delay-seconds or any of the
// three HTTP-date forms; now converts a date to a delay and a past date gives
// zero. A delay above MaxDelay is clamped to it (Clamped says so). Anything
// else (negative, fractional, units, lists) wraps ErrSyntax.
func ParseRetryAfter(v string, now time.Time) (RetryAfter, error) {
	if v == "" {
		return RetryAfter{}, fmt.Errorf("headers: Retry-After: empty: %w", ErrSyntax)
	}
	if isDigits(v) {
		// RFC 9110 allows arbitrarily many digits; saturate rather than fail.
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(MaxDelay/time.Second) {
			return RetryAfter{Delay: MaxDelay, Form: "delay-seconds", Clamped: true}, nil
		}
		return RetryAfter{Delay: time.Duration(n) * time.Second, Form: "delay-seconds"}, nil
	}
	for _, f := range []struct{ layout, name string }{
		{IMFFixdate, "IMF-fixdate"}, {RFC850Date, "rfc850"}, {ASCTimeDate, "asctime"},
	} {
		t, err := time.Parse(f.layout, v)
		if err != nil {
			continue
		}
		if f.name == "rfc850" {
			t = fixTwoDigitYear(t, now)
		}
		d, clamped := clampDelay(t.Sub(now))
		return RetryAfter{Delay: d, Date: true, Form: f.name, Clamped: clamped}, nil
	}
	return RetryAfter{}, fmt.Errorf("headers: Retry-After %q is neither delay-seconds nor an HTTP-date: %w", v, ErrSyntax)
}

// FormatRetryAfter renders d as delay-seconds, rounding up so a client that
// honours it never comes back early, and clamping to MaxDelay so a huge
// delay (a dependency's, passed on) is never written wrapped or negative.
func FormatRetryAfter(d time.Duration) string {
	d, _ = clampDelay(d)
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++ // cannot pass MaxDelay: it is a whole number of seconds
	}
	return strconv.FormatInt(s, 10)
}

// fixTwoDigitYear applies RFC 9110 §5.6.7: a two-digit year more than 50
// years in the future is read as the most recent past year with those digits.
func fixTwoDigitYear(t, now time.Time) time.Time {
	for t.After(now.AddDate(50, 0, 0)) {
		t = t.AddDate(-100, 0, 0)
	}
	for t.Before(now.AddDate(-50, 0, 0)) {
		t = t.AddDate(100, 0, 0)
	}
	return t
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
