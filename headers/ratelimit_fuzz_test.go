package headers

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// FuzzParseRateLimitFields: every rate-limit parser either succeeds with
// counts that are not negative and durations in [0, MaxDelay], or fails with
// errors that wrap ErrSyntax.
func FuzzParseRateLimitFields(f *testing.F) {
	for _, c := range [][2]string{
		{`"tenant";q=50;w=1`, `"tenant";r=7;t=1`},
		{`"a";q=1;w=999999999999999;qu="request";pk=:AAE=:`, `"a";r=0;t=1000000001`},
		{`10;w=1, 100;w=60`, `limit=100, remaining=50, reset=5`},
		{`"x";q=-1`, `"x";r=1;t=-1;foo=bar`},
		{`1;` + manyParams(3)[2:], `k, (1 2);a`},
		{"", ""},
	} {
		f.Add(c[0], c[1], "100", "99", "30")
	}
	f.Add("", "", "10", "0", "1700000000")
	f.Add("", "", "10", "0", "1700000000000")
	f.Add("", "", "10", "-1", "Sun, 06 Nov 1994 08:49:37 GMT")
	f.Fuzz(func(t *testing.T, policy, limit, xLimit, xRemaining, xReset string) {
		syntax := func(what string, err error) {
			if err != nil && !errors.Is(err, ErrSyntax) {
				t.Fatalf("%s: error %v does not wrap ErrSyntax", what, err)
			}
		}
		h := http.Header{}
		if policy != "" {
			h.Set(RateLimitPolicy, policy)
		}
		if limit != "" {
			h.Set(RateLimit, limit)
		}
		f, err := ParseRateLimitFields(h)
		syntax("ParseRateLimitFields", err)
		for _, p := range f.Policies {
			if p.Quota < 0 || p.Window < 0 || p.Window > MaxDelay {
				t.Fatalf("policy %+v from %q: negative quota or window outside [0, MaxDelay]", p, policy)
			}
		}
		for _, l := range f.Limits {
			if l.Remaining < 0 || l.Quota < 0 || l.Reset < 0 || l.Reset > MaxDelay {
				t.Fatalf("limit %+v from %q: negative count or reset outside [0, MaxDelay]", l, limit)
			}
		}
		_, err = ParseRateLimitPolicy(policy)
		syntax("ParseRateLimitPolicy", err)
		_, err = ParseRateLimit(limit)
		syntax("ParseRateLimit", err)

		xh := http.Header{}
		xh.Set(XRateLimitLimit, xLimit)
		xh.Set(XRateLimitRemaining, xRemaining)
		xh.Set(XRateLimitReset, xReset)
		x, err := ParseXRateLimit(xh, time.Unix(1_700_000_000, 0))
		syntax("ParseXRateLimit", err)
		if x.Limit < 0 || x.Remaining < 0 || x.Used < 0 || x.ResetIn > MaxDelay || x.ResetIn < -MaxDelay {
			t.Fatalf("ParseXRateLimit(%q, %q, %q) = %+v: a negative count or a reset beyond ±MaxDelay", xLimit, xRemaining, xReset, x)
		}
	})
}
