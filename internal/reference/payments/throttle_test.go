package payments

import (
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// refusing is a processor that refuses with status while down, and charges
// otherwise.
type refusing struct {
	status int
	down   atomic.Bool
}

func (p *refusing) fn(n int, w http.ResponseWriter, r *http.Request) {
	if p.down.Load() {
		status(p.status)(n, w, r)
		return
	}
	status(http.StatusCreated)(n, w, r)
}

// TestThrottle_Refusals: while the processor refuses (429), calls fall to
// about (1 − MaxRejection) of the attempts; under throttle-never every
// attempt is made (the breaker does not count refusals either). A 503 is
// the breaker's: it opens after 5 failures of 10, as it always did.
func TestThrottle_Refusals(t *testing.T) {
	const n = 200
	tests := []struct {
		name    string
		status  int
		defects []defect.Name
		lo, hi  int // bounds on the calls made for n payments
	}{
		// 5 calls before the history rejects anything, then at most
		// about 10 % of at most 3 attempts each (a permitted retry too).
		{"429", http.StatusTooManyRequests, nil, 5, 100},
		// Neither defect touches the throttler: a local rejection still
		// ends the payment, whatever the per-kind cap counts.
		{"no-retry-budget", http.StatusTooManyRequests, []defect.Name{defect.NoRetryBudget}, 5, 100},
		{"cap-per-kind", http.StatusTooManyRequests, []defect.Name{defect.RetryCapPerFailureKind}, 5, 100},
		// Engages, and then rejects everything.
		{"stuck-engages", http.StatusTooManyRequests, []defect.Name{defect.ThrottleStuck}, 5, 10},
		{"never", http.StatusTooManyRequests, []defect.Name{defect.ThrottleNever}, 3 * n, 3 * n},
		// The breaker opens on 503 (5 failures of 10 attempts), half-opens
		// each second, and re-opens on its trial: not the throttler's.
		{"503-breaker", http.StatusServiceUnavailable, nil, 5, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &refusing{status: tt.status}
				p.down.Store(true)
				s := &script{fn: p.fn}
				c := newTestCaller(t, RetryConfig{}, s, tt.defects...)
				for range n {
					chargeWithin(c, 10*time.Second)
					time.Sleep(10 * time.Millisecond)
				}
				got := len(s.attempts())
				t.Logf("%d calls for %d refused payments", got, n)
				if got < tt.lo || got > tt.hi {
					t.Errorf("%d calls for %d refused payments, want [%d, %d]", got, n, tt.lo, tt.hi)
				}
			})
		})
	}
}

// TestThrottle_Recovery: once the processor heals, every call goes through
// within the Period; under throttle-stuck every call stays rejected for as
// long as traffic flows, and only a Period without calls starts it over.
func TestThrottle_Recovery(t *testing.T) {
	tests := []struct {
		name    string
		defects []defect.Name
		stuck   bool
	}{
		{"correct", nil, false},
		{"stuck", []defect.Name{defect.ThrottleStuck}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &refusing{status: http.StatusTooManyRequests}
				p.down.Store(true)
				s := &script{fn: p.fn}
				c := newTestCaller(t, RetryConfig{}, s, tt.defects...)
				for range 100 {
					chargeWithin(c, 10*time.Second)
					time.Sleep(20 * time.Millisecond)
				}
				p.down.Store(false)
				// 2 s of payments every 20 ms, then 1 s more to judge.
				for range 100 {
					chargeWithin(c, 10*time.Second)
					time.Sleep(20 * time.Millisecond)
				}
				var ok int
				for range 50 {
					if chargeWithin(c, 10*time.Second).kind == charged {
						ok++
					}
					time.Sleep(20 * time.Millisecond)
				}
				if tt.stuck {
					if ok > 0 {
						t.Errorf("throttle-stuck: %d of 50 payments charged 2 s after healing, want none", ok)
					}
					time.Sleep(2 * time.Second) // a Period without calls
					if out := chargeWithin(c, 10*time.Second); out.kind != charged {
						t.Errorf("after a quiet Period: %+v, want charged", out)
					}
					return
				}
				if ok != 50 {
					t.Errorf("%d of 50 payments charged 2 s after healing, want all", ok)
				}
			})
		})
	}
}
