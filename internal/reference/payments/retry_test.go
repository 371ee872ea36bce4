package payments

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// inProcess serves an http.Handler inside the synctest bubble, so the retry
// policy's real timers run on the fake clock. The handler is the scripted
// dependency; everything under test (failsafe policies, delays, deadline
// checks) is the production code.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}

// script records attempts and answers each with fn.
type script struct {
	mu  sync.Mutex
	at  []time.Time
	hdr []http.Header
	fn  func(n int, w http.ResponseWriter, r *http.Request)
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.at = append(s.at, time.Now())
	s.hdr = append(s.hdr, r.Header.Clone())
	n := len(s.at)
	s.mu.Unlock()
	s.fn(n, w, r)
}

func (s *script) attempts() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...)
}

func status(code int, hdr ...string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.WriteHeader(code)
		if code == http.StatusCreated {
			_, _ = w.Write([]byte(`{"id":"ch_1","status":"succeeded"}`))
		}
	}
}

func newTestCaller(t *testing.T, rc RetryConfig, s *script, defects ...defect.Name) *caller {
	t.Helper()
	set := defect.Set{}
	for _, d := range defects {
		set[d] = true
	}
	c, err := newCaller(&config{processorURL: "http://processor.test", retry: rc.withDefaults(),
		client: &http.Client{Transport: inProcess{s}}, defects: set}, newLockedRand(1))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chargeWithin(c *caller, budget time.Duration) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	return c.charge(ctx, chargeCall{amount: 1, currency: "EUR", reference: "pay_1", key: "pay_1",
		deadline: time.Now().Add(budget), enforce: true})
}

func gaps(at []time.Time) []time.Duration {
	var g []time.Duration
	for i := 1; i < len(at); i++ {
		g = append(g, at[i].Sub(at[i-1]))
	}
	return g
}

func TestCaller_AttemptCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{fn: status(http.StatusServiceUnavailable)}
		out := chargeWithin(newTestCaller(t, RetryConfig{}, s), 10*time.Second)
		at := s.attempts()
		if len(at) != 3 || out.kind != unknown || out.deadline {
			t.Fatalf("%d attempts, outcome %+v; want 3 attempts and an unknown outcome", len(at), out)
		}
		for i, g := range gaps(at) {
			if ceil := backoffCeil(50*time.Millisecond, time.Second, i); g > ceil {
				t.Errorf("wait %d = %v, over the full-jitter bound %v", i, g, ceil)
			}
		}
		if s.hdr[0].Get("Idempotency-Key") != "pay_1" || s.hdr[2].Get("Idempotency-Key") != "pay_1" {
			t.Errorf("every attempt must carry the payment id as key: %v", s.hdr)
		}
	})
}

func TestCaller_RetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		code    int
		value   func() string
		min     time.Duration // the second attempt comes no earlier
		max     time.Duration // and no later
		defects []defect.Name
	}{
		{"seconds-503", 503, func() string { return "2" }, 2 * time.Second, 2 * time.Second, nil},
		{"seconds-429", 429, func() string { return "1" }, time.Second, time.Second, nil},
		{"imf-fixdate", 503, func() string { return time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat) }, 3 * time.Second, 3 * time.Second, nil},
		{"invalid-falls-back", 503, func() string { return "1.5s" }, 0, 50 * time.Millisecond, nil},
		{"past-date", 503, func() string { return time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat) }, 0, 50 * time.Millisecond, nil},
		{"not-on-500", 500, func() string { return "2" }, 0, 50 * time.Millisecond, nil},
		{"defect-ignore-retry-after", 503, func() string { return "2" }, 0, 50 * time.Millisecond, []defect.Name{defect.IgnoreRetryAfter}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &script{fn: func(n int, w http.ResponseWriter, r *http.Request) {
					if n == 1 {
						status(tc.code, "Retry-After", tc.value())(n, w, r)
						return
					}
					status(http.StatusCreated)(n, w, r)
				}}
				out := chargeWithin(newTestCaller(t, RetryConfig{}, s, tc.defects...), 10*time.Second)
				at := s.attempts()
				if out.kind != charged || len(at) != 2 {
					t.Fatalf("outcome %+v after %d attempts", out, len(at))
				}
				if g := at[1].Sub(at[0]); g < tc.min || g > tc.max {
					t.Errorf("second attempt after %v, want within [%v, %v]", g, tc.min, tc.max)
				}
			})
		})
	}
}

func TestCaller_NonRetryable(t *testing.T) {
	for _, tc := range []struct {
		code     int
		defects  []defect.Name
		attempts int
		kind     outcomeKind
	}{
		{400, nil, 1, rejected},
		{409, nil, 1, rejected},
		{422, nil, 1, rejected},
		{402, nil, 1, declined},
		{501, nil, 1, unknown},
		{400, []defect.Name{defect.RetryNonRetryable}, 3, rejected},
		{422, []defect.Name{defect.RetryNonRetryable}, 3, rejected},
	} {
		synctest.Test(t, func(t *testing.T) {
			s := &script{fn: status(tc.code)}
			out := chargeWithin(newTestCaller(t, RetryConfig{}, s, tc.defects...), 10*time.Second)
			if n := len(s.attempts()); n != tc.attempts || out.kind != tc.kind {
				t.Errorf("%d with %v: %d attempts, kind %d; want %d, kind %d", tc.code, tc.defects, n, out.kind, tc.attempts, tc.kind)
			}
		})
	}
}

func TestCaller_Deadline(t *testing.T) {
	t.Run("wait-past-deadline-is-not-taken", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &script{fn: status(http.StatusServiceUnavailable, "Retry-After", "5")}
			start := time.Now()
			out := chargeWithin(newTestCaller(t, RetryConfig{}, s), time.Second)
			if n := len(s.attempts()); n != 1 || time.Since(start) != 0 || out.kind != unknown || out.deadline || out.retryAfter != 5*time.Second {
				t.Errorf("%d attempts, returned after %v, outcome %+v; want 1 attempt, an answer at once, 503 with Retry-After 5s",
					n, time.Since(start), out)
			}
		})
	})
	t.Run("slow-attempt-cancelled-at-deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var cancelledAt time.Time
			s := &script{fn: func(_ int, w http.ResponseWriter, r *http.Request) {
				select {
				case <-time.After(time.Hour):
				case <-r.Context().Done():
					cancelledAt = time.Now()
				}
			}}
			start := time.Now()
			out := chargeWithin(newTestCaller(t, RetryConfig{}, s), 500*time.Millisecond)
			if n := len(s.attempts()); n != 1 || !out.deadline || cancelledAt.Sub(start) != 500*time.Millisecond {
				t.Errorf("%d attempts, outcome %+v, downstream cancelled after %v; want 1 attempt cancelled at the 500ms deadline",
					n, out, cancelledAt.Sub(start))
			}
		})
	})
	t.Run("attempt-timeout-then-no-attempt-after-deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &script{fn: func(_ int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }}
			start := time.Now()
			out := chargeWithin(newTestCaller(t, RetryConfig{AttemptTimeout: time.Second}, s), 1500*time.Millisecond)
			at := s.attempts()
			if len(at) != 2 || !out.deadline {
				t.Errorf("%d attempts, outcome %+v; want 2 (1s attempt timeout, 1.5s budget)", len(at), out)
			}
			for _, a := range at {
				if a.Sub(start) >= 1500*time.Millisecond {
					t.Errorf("attempt started %v after start, past the deadline", a.Sub(start))
				}
			}
			if v := s.hdr[0].Get("X-Request-Timeout-Ms"); v != "1500" {
				t.Errorf("first attempt X-Request-Timeout-Ms %q, want 1500", v)
			}
		})
	})
}

func TestCaller_Jitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{fn: status(http.StatusServiceUnavailable)}
		// The breaker would open after a few failures; a huge window keeps
		// it closed so that every charge samples the backoff.
		c := newTestCaller(t, RetryConfig{BreakerFailures: 100000, BreakerWindow: 100000}, s)
		var first []time.Duration
		for range 300 {
			before := len(s.attempts())
			chargeWithin(c, 10*time.Second)
			at := s.attempts()[before:]
			g := gaps(at)
			for i, d := range g {
				if d < 0 || d > backoffCeil(50*time.Millisecond, time.Second, i) {
					t.Fatalf("wait %d = %v out of bounds", i, d)
				}
			}
			first = append(first, g[0])
		}
		var lo, hi int
		for _, d := range first {
			switch {
			case d < 12500*time.Microsecond:
				lo++
			case d > 37500*time.Microsecond:
				hi++
			}
		}
		// Uniform on [0, 50ms]: about 75 samples in each outer quarter.
		if lo < 40 || hi < 40 {
			t.Errorf("first waits not spread over [0, 50ms]: %d in the lowest quarter, %d in the highest", lo, hi)
		}
	})
	t.Run("defect-no-jitter", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &script{fn: status(http.StatusServiceUnavailable)}
			chargeWithin(newTestCaller(t, RetryConfig{}, s, defect.NoJitter), 10*time.Second)
			g := gaps(s.attempts())
			if len(g) != 2 || g[0] != 50*time.Millisecond || g[1] != 100*time.Millisecond {
				t.Errorf("waits %v, want exactly [50ms 100ms] without jitter", g)
			}
		})
	})
}

func TestBackoffCeil(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{0, 50 * time.Millisecond}, {1, 100 * time.Millisecond}, {4, 800 * time.Millisecond}, {5, time.Second}, {80, time.Second}} {
		if got := backoffCeil(50*time.Millisecond, time.Second, tc.n); got != tc.want {
			t.Errorf("backoffCeil(n=%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestCaller_Outage: under a sustained outage the breaker stops calls, and
// the retry budget caps concurrent retries; the no-retry-budget defect sends
// every attempt.
func TestCaller_Outage(t *testing.T) {
	const n = 50
	sequential := func(t *testing.T, defects ...defect.Name) int {
		s := &script{fn: status(http.StatusServiceUnavailable)}
		c := newTestCaller(t, RetryConfig{}, s, defects...)
		for range n {
			chargeWithin(c, 10*time.Second)
		}
		return len(s.attempts())
	}
	synctest.Test(t, func(t *testing.T) {
		if got := sequential(t); got > 12 {
			t.Errorf("breaker: %d attempts for %d payments, want at most 12", got, n)
		}
		if got := sequential(t, defect.NoRetryBudget); got != 3*n {
			t.Errorf("no-retry-budget: %d attempts, want %d", got, 3*n)
		}
	})
	t.Run("breaker-half-opens", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var up bool
			s := &script{fn: func(n int, w http.ResponseWriter, r *http.Request) {
				if up {
					status(http.StatusCreated)(n, w, r)
					return
				}
				status(http.StatusServiceUnavailable)(n, w, r)
			}}
			c := newTestCaller(t, RetryConfig{}, s)
			for range 10 {
				chargeWithin(c, 10*time.Second)
			}
			up = true
			before := len(s.attempts())
			if out := chargeWithin(c, 10*time.Second); out.kind != unknown || len(s.attempts()) != before || out.retryAfter < time.Second {
				t.Fatalf("open breaker: outcome %+v, %d new attempts; want no call and Retry-After ≥ 1s", out, len(s.attempts())-before)
			}
			time.Sleep(time.Second)
			if out := chargeWithin(c, 10*time.Second); out.kind != charged {
				t.Errorf("after 1s the breaker should let a trial through: %+v", out)
			}
		})
	})
	concurrent := func(t *testing.T, defects ...defect.Name) int {
		s := &script{fn: func(n int, w http.ResponseWriter, r *http.Request) {
			time.Sleep(100 * time.Millisecond)
			status(http.StatusServiceUnavailable)(n, w, r)
		}}
		c := newTestCaller(t, RetryConfig{BreakerFailures: 100000, BreakerWindow: 100000}, s, defects...)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() { chargeWithin(c, 10*time.Second) })
		}
		wg.Wait()
		return len(s.attempts())
	}
	t.Run("budget", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			got := concurrent(t)
			t.Logf("%d concurrent payments in an outage: %d attempts (%.0f%% retries)", n, got, 100*float64(got-n)/float64(n))
			// 20% of in-flight calls may be retries: about n/4 over the first
			// wave, far below the 2n a policy without a budget sends.
			if got > n+n/2 {
				t.Errorf("budget: %d attempts for %d concurrent payments, want at most %d", got, n, n+n/2)
			}
			if got := concurrent(t, defect.NoRetryBudget); got != 3*n {
				t.Errorf("no-retry-budget: %d attempts, want %d", got, 3*n)
			}
		})
	})
}

// TestCaller_CapPerFailureKind: under retry-cap-per-failure-kind one kind of
// failure still stops at the cap, but 503, 503, 429 (the cap restarting at
// the change of kind) goes on to a fourth attempt; the correct caller stops
// at three whatever the mix.
func TestCaller_CapPerFailureKind(t *testing.T) {
	mixed := func(n int, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1, 2:
			status(http.StatusServiceUnavailable)(n, w, r)
		case 3:
			status(http.StatusTooManyRequests)(n, w, r)
		default:
			status(http.StatusCreated)(n, w, r)
		}
	}
	for _, tc := range []struct {
		name    string
		fn      func(int, http.ResponseWriter, *http.Request)
		defects []defect.Name
		want    int
	}{
		{"correct, mixed", mixed, nil, 3},
		{"defect, one kind", status(http.StatusServiceUnavailable), []defect.Name{defect.RetryCapPerFailureKind}, 3},
		{"defect, mixed", mixed, []defect.Name{defect.RetryCapPerFailureKind}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &script{fn: tc.fn}
				chargeWithin(newTestCaller(t, RetryConfig{}, s, tc.defects...), 10*time.Second)
				if n := len(s.attempts()); n != tc.want {
					t.Fatalf("%d attempts; want %d", n, tc.want)
				}
			})
		})
	}
}

// TestCaller_DeadlineOnHeadersOnly: a processor that sends its headers at
// once and its body 400 ms later holds the caller past a 150 ms budget only
// under deadline-on-headers-only; a hang is cut at the budget either way.
func TestCaller_DeadlineOnHeadersOnly(t *testing.T) {
	trickle := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.(http.Flusher).Flush()
		select {
		case <-time.After(400 * time.Millisecond):
			_, _ = w.Write([]byte(`{"id":"ch_1"}`))
		case <-r.Context().Done():
		}
	}))
	defer trickle.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // bounded, so Close cannot wait on a connection the client kept
		case <-r.Context().Done():
		case <-time.After(time.Second):
		}
	}))
	defer hang.Close()
	for _, tc := range []struct {
		name    string
		url     string
		defects []defect.Name
		late    bool
	}{
		{"correct, trickle", trickle.URL, nil, false},
		{"defect, trickle", trickle.URL, []defect.Name{defect.DeadlineOnHeadersOnly}, true},
		{"defect, hang", hang.URL, []defect.Name{defect.DeadlineOnHeadersOnly}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := defect.Set{}
			for _, d := range tc.defects {
				set[d] = true
			}
			c, err := newCaller(&config{processorURL: tc.url, retry: RetryConfig{MaxAttempts: 1}.withDefaults(),
				client: &http.Client{}, defects: set}, newLockedRand(1))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			chargeWithin(c, 150*time.Millisecond)
			if took := time.Since(start); (took > 300*time.Millisecond) != tc.late {
				t.Errorf("the charge took %s with a 150 ms budget; want late = %v", took, tc.late)
			}
		})
	}
}
