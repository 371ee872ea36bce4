package retryafter

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestRaSenderValue(t *testing.T) {
	t.Parallel()
	now := time.Date(1994, 11, 6, 8, 49, 32, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"120", 120 * time.Second, true},
		{"Sun, 06 Nov 1994 08:49:37 GMT", 5 * time.Second, true},
		{"Sunday, 06-Nov-94 08:49:37 GMT", 0, false}, // HS-02: senders must use IMF-fixdate
		{"Sun Nov  6 08:49:37 1994", 0, false},
		{"1.5s", 0, false},
		{"-1", 0, false},
		{"120, 60", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		got, err := raSenderValue(c.in, now)
		if (err == nil) != c.ok || (c.ok && got.Delay != c.want) {
			t.Errorf("raSenderValue(%q) = %s, %v; want %s, ok=%v", c.in, got.Delay, err, c.want, c.ok)
		}
	}
	if _, err := raSenderValue("", now); !errors.Is(err, errNoRetryAfter) {
		t.Errorf("raSenderValue(\"\") error = %v; want errNoRetryAfter", err)
	}
}

func TestRaReset(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		h    http.Header
		want int64
		ok   bool
	}{
		{"draft-10 single", http.Header{"Ratelimit": {`"tenant";r=0;t=1`}}, 1, true},
		{"draft-10 single, r lies", http.Header{"Ratelimit": {`"tenant";r=25;t=1`}}, 1, true},
		{"draft-10 two policies", http.Header{"Ratelimit": {`"day";r=100;t=86400, "burst";r=0;t=3`}}, 3, true},
		{"draft-10 none exhausted", http.Header{"Ratelimit": {`"day";r=100;t=86400, "burst";r=5;t=3`}}, 0, false},
		{"draft-07", http.Header{"Ratelimit": {"limit=100, remaining=0, reset=5"}}, 5, true},
		{"draft-06", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"7"}}, 7, true},
		{"none", http.Header{}, 0, false},
	}
	for _, c := range cases {
		got, _, ok := raReset(c.h)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: raReset = %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
