package headers

import (
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(1994, 11, 6, 8, 49, 32, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		form string
	}{
		{"0", 0, "delay-seconds"},
		{"120", 120 * time.Second, "delay-seconds"},
		{"Sun, 06 Nov 1994 08:49:37 GMT", 5 * time.Second, "IMF-fixdate"},
		{"Sunday, 06-Nov-94 08:49:37 GMT", 5 * time.Second, "rfc850"},
		{"Sun Nov  6 08:49:37 1994", 5 * time.Second, "asctime"},
		{"Sun, 06 Nov 1994 08:49:00 GMT", 0, "IMF-fixdate"}, // in the past: retry now
	}
	for _, c := range cases {
		got, err := ParseRetryAfter(c.in, now)
		if err != nil || got.Delay != c.want || got.Form != c.form {
			t.Errorf("ParseRetryAfter(%q) = %+v, %v; want %s (%s)", c.in, got, err, c.want, c.form)
		}
	}
	for _, bad := range []string{"", "-1", "1.5", "1.5s", "5s", "120, 60", " 5", "Sun, 06 Nov 1994"} {
		if _, err := ParseRetryAfter(bad, now); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseRetryAfter(%q) error = %v; want ErrSyntax", bad, err)
		}
	}
}

func TestFormatRetryAfter_neverEarly(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(t, "d"))
		s := FormatRetryAfter(d)
		got, err := ParseRetryAfter(s, time.Time{})
		if err != nil {
			t.Fatalf("FormatRetryAfter(%s) = %q does not parse: %v", d, s, err)
		}
		if got.Delay < d || got.Delay-d >= time.Second {
			t.Fatalf("FormatRetryAfter(%s) = %q, parsed back as %s", d, s, got.Delay)
		}
	})
}
