package headers

import (
	"math"
	"net/http"
	"testing"
	"time"
)

// TestFormatRetryAfter_clamp: no duration, however large, is written as a
// negative or wrapped delay-seconds value.
func TestFormatRetryAfter_clamp(t *testing.T) {
	t.Parallel()
	huge, err := ParseRetryAfter("99999999999", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0"},
		{0, "0"},
		{1, "1"},
		{time.Second, "1"},
		{MaxDelay, "2147483647"},
		{MaxDelay + 1, "2147483647"},
		{time.Duration(math.MaxInt64), "2147483647"},
		{huge.Delay, "2147483647"},
	}
	for _, c := range cases {
		if got := FormatRetryAfter(c.d); got != c.want {
			t.Errorf("FormatRetryAfter(%d) = %q; want %q", c.d, got, c.want)
		}
	}
}

func TestParseRetryAfter_clamp(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		in      string
		want    time.Duration
		clamped bool
	}{
		{"2147483647", MaxDelay, false},
		{"2147483648", MaxDelay, true},
		{"99999999999", MaxDelay, true},
		{"99999999999999999999999999", MaxDelay, true},
		{"Fri, 31 Dec 9999 23:59:59 GMT", MaxDelay, true},
		{"Thu, 01 Jan 2026 00:00:10 GMT", 10 * time.Second, false},
	}
	for _, c := range cases {
		got, err := ParseRetryAfter(c.in, now)
		if err != nil || got.Delay != c.want || got.Clamped != c.clamped {
			t.Errorf("ParseRetryAfter(%q) = %+v, %v; want delay %s, clamped %v", c.in, got, err, c.want, c.clamped)
		}
	}
}

// TestTimeout_clamp: deadline budgets saturate at MaxDelay, so a caller can
// add to one without overflow.
func TestTimeout_clamp(t *testing.T) {
	t.Parallel()
	for _, h := range []http.Header{
		{"X-Request-Timeout-Ms": {"999999999999999999"}},
		{"X-Envoy-Upstream-Rq-Timeout-Ms": {"999999999999999999"}},
		{"Grpc-Timeout": {"99999999H"}},
	} {
		got, ok, err := Timeout(h)
		if err != nil || !ok || got != MaxDelay {
			t.Errorf("Timeout(%v) = %s, %v, %v; want %s", h, got, ok, err, MaxDelay)
		}
	}
}

// TestParseRateLimitPolicy_clamp: a window too large for a Duration is
// clamped, never wrapped negative.
func TestParseRateLimitPolicy_clamp(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`"a";q=1;w=999999999999999`, `10;w=999999999999999`} {
		ps, err := ParseRateLimitPolicy(v)
		if err != nil || len(ps) != 1 || ps[0].Window != MaxDelay {
			t.Errorf("ParseRateLimitPolicy(%q) = %+v, %v; want window %s", v, ps, err, MaxDelay)
		}
	}
}

// TestParseXRateLimit_clamp: a reset however far away is at most MaxDelay
// from now either way.
func TestParseXRateLimit_clamp(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, reset := range []string{"9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"} {
		h := http.Header{}
		h.Set(XRateLimitReset, reset)
		x, err := ParseXRateLimit(h, now)
		if err != nil || !x.HasReset || x.ResetIn > MaxDelay || x.ResetIn < -MaxDelay {
			t.Errorf("ParseXRateLimit(reset %q) = %s, %v; want within ±MaxDelay", reset, x.ResetIn, err)
		}
	}
}
