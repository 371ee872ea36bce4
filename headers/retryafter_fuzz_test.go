package headers

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzParseRetryAfter: a parsed delay lies in [0, MaxDelay], an error wraps
// ErrSyntax, and formatting the delay parses back to a delay no shorter and
// less than a second longer (delay-seconds rounds up).
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{
		"0", "120", "007", "2147483647", "2147483648", "99999999999", "99999999999999999999999999",
		"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Fri, 31 Dec 9999 23:59:59 GMT", "-1", "1.5", "120, 60", " 1", "",
	} {
		f.Add(s, int64(784111777))
	}
	f.Fuzz(func(t *testing.T, v string, nowUnix int64) {
		now := time.Unix(nowUnix%(1<<40), 0) // years 1 to ~36,000: what time.Time handles exactly
		ra, err := ParseRetryAfter(v, now)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseRetryAfter(%q) error %v does not wrap ErrSyntax", v, err)
			}
			return
		}
		if ra.Delay < 0 || ra.Delay > MaxDelay || ra.Clamped != (ra.Clamped && ra.Delay == MaxDelay) {
			t.Fatalf("ParseRetryAfter(%q) = %+v: delay outside [0, MaxDelay]", v, ra)
		}
		if ra.Form == "delay-seconds" && !ra.Clamped {
			if want := strings.TrimLeft(v, "0"); FormatRetryAfter(ra.Delay) != want && !(want == "" && FormatRetryAfter(ra.Delay) == "0") {
				t.Fatalf("ParseRetryAfter(%q) then FormatRetryAfter = %q", v, FormatRetryAfter(ra.Delay))
			}
		}
		back, err := ParseRetryAfter(FormatRetryAfter(ra.Delay), now)
		if err != nil || back.Delay < ra.Delay || back.Delay-ra.Delay >= time.Second {
			t.Fatalf("ParseRetryAfter(%q) = %s; formatted %q parses back as %s, %v", v, ra.Delay, FormatRetryAfter(ra.Delay), back.Delay, err)
		}
	})
}

// FuzzFormatRetryAfter: any duration is written as digits only, never
// negative, at most MaxDelay, and never shorter than asked (up to the cap).
func FuzzFormatRetryAfter(f *testing.F) {
	for _, d := range []int64{-1, 0, 1, int64(time.Second), int64(MaxDelay), int64(MaxDelay) + 1, 1<<63 - 1, -1 << 63} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := time.Duration(n)
		s := FormatRetryAfter(d)
		if !isDigits(s) {
			t.Fatalf("FormatRetryAfter(%d) = %q: not delay-seconds", n, s)
		}
		ra, err := ParseRetryAfter(s, time.Time{})
		if err != nil || ra.Clamped || ra.Delay < min(max(d, 0), MaxDelay) {
			t.Fatalf("FormatRetryAfter(%d) = %q parses as %+v, %v", n, s, ra, err)
		}
	})
}
