package gateway

import (
	"fmt"
	"testing"
	"time"
)

func TestNewQuota(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		perSecond float64
		burst     int
		q         int64
		w         time.Duration
	}{
		{50, 50, 50, time.Second},     // the default: q = burst, w = burst/rate
		{10, 25, 30, 3 * time.Second}, // w rounded up to whole seconds
		{0.5, 1, 1, 2 * time.Second},  // slower than one per second
		{0.3, 1, 3, 10 * time.Second}, // w nudged until q is whole
		{1, 100, 100, 100 * time.Second},
	} {
		qt := newQuota(tc.perSecond, tc.burst)
		if qt.q != tc.q || qt.window != tc.w {
			t.Errorf("newQuota(%g, %d) = q %d w %s; want q %d w %s", tc.perSecond, tc.burst, qt.q, qt.window, tc.q, tc.w)
		}
	}
}

// TestLimiter_Take shows the tenant map stays bounded: full buckets go
// first, then the least recently seen.
func TestLimiter_Take(t *testing.T) {
	t.Parallel()
	l := newLimiter(newQuota(5, 5), 8)
	now := time.Unix(1_700_000_000, 0)
	for i := range 100 {
		l.take(fmt.Sprint("idle-", i), now) // each is full again a second later
		now = now.Add(1100 * time.Millisecond)
	}
	if n := l.tenants(); n > 8 {
		t.Fatalf("after 100 idle tenants: %d buckets, want <= 8", n)
	}
	for i := range 100 {
		l.take(fmt.Sprint("busy-", i), now) // all drained at the same instant
	}
	if n := l.tenants(); n > 8 {
		t.Fatalf("after 100 busy tenants: %d buckets, want <= 8", n)
	}
	if d := l.take("busy-99", now); d.remaining != 3 {
		t.Fatalf("the most recent tenant was evicted: remaining %d, want 3", d.remaining)
	}
}
