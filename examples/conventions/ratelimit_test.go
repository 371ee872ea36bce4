package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// TestLimiter_take: q admissions in a burst, then refusals whose Retry-After
// is the next token and whose reset is when the bucket is full; accounts
// are apart; every admission moves the reset 1/q later.
func TestLimiter_take(t *testing.T) {
	l := newLimiter(10, "")
	now := time.Unix(1_700_000_000, 0)
	var prev admission
	for i := range 10 {
		a := l.take("acme", now)
		if !a.allowed || a.remaining != int64(9-i) {
			t.Fatalf("request %d: allowed %v, r=%d; want admitted, r=%d", i+1, a.allowed, a.remaining, 9-i)
		}
		if i > 0 && a.full.Sub(prev.full) != 100*time.Millisecond {
			t.Errorf("request %d: full moved %s, want 100ms", i+1, a.full.Sub(prev.full))
		}
		prev = a
	}
	a := l.take("acme", now)
	if a.allowed || a.remaining != 0 || a.next.Sub(now) != 100*time.Millisecond || a.full.Sub(now) != time.Second {
		t.Fatalf("11th: allowed %v, r=%d, next in %s, full in %s; want refused, 0, 100ms, 1s", a.allowed, a.remaining, a.next.Sub(now), a.full.Sub(now))
	}
	if b := l.take("globex", now); !b.allowed {
		t.Error("globex refused after acme's quota ran out")
	}
	if a := l.take("acme", now.Add(100*time.Millisecond)); !a.allowed {
		t.Error("acme refused once the next token came")
	}
	hd := http.Header{}
	l.setFields(hd, "acme", a, false)
	f, err := headers.ParseRateLimitFields(hd)
	if err != nil || len(f.Policies) != 1 || f.Policies[0].Quota != 10 || f.Policies[0].Window != time.Second || f.Limits[0].Reset != time.Second {
		t.Errorf("fields %v do not parse to q=10, w=1, t=1: %+v, %v", hd, f, err)
	}
	x, err := headers.ParseXRateLimit(hd, now)
	if err != nil || x.Limit != 10 || x.Remaining != 0 || !x.ResetAt.Equal(a.full) {
		t.Errorf("legacy fields %v: %+v, %v", hd, x, err)
	}
}

// TestLimiter_breaks: the switches that change admission.
func TestLimiter_breaks(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	drain := func(l *limiter, account string) {
		for range 20 {
			l.take(account, now)
		}
	}
	shared := newLimiter(5, "shared-quota")
	drain(shared, "acme")
	if shared.take("globex", now).allowed {
		t.Error("shared-quota: globex admitted from acme's empty bucket")
	}
	banned := newLimiter(5, "refuses-after-reset")
	drain(banned, "acme")
	if banned.take("acme", now.Add(2*time.Second)).allowed {
		t.Error("refuses-after-reset: admitted 2 s after the first refusal")
	}
	if !banned.take("acme", now.Add(4*time.Second)).allowed {
		t.Error("refuses-after-reset: still refused after the 3 s ban")
	}
	more := newLimiter(5, "enforces-more-than-advertised")
	n := 0
	for range 20 {
		if a := more.take("acme", now); a.allowed {
			n++
			if a.remaining > 5 {
				t.Errorf("advertised r=%d above q=5", a.remaining)
			}
		}
	}
	if n != 10 {
		t.Errorf("enforces-more-than-advertised: %d admitted in a burst, want 10", n)
	}
}
