package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"
)

var eur = PaymentRequest{Amount: 1000, Currency: "EUR"}

type attemptLog struct {
	mu sync.Mutex
	as []Attempt
}

func (l *attemptLog) add(a Attempt) { l.mu.Lock(); l.as = append(l.as, a); l.mu.Unlock() }

func (l *attemptLog) all() []Attempt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Attempt(nil), l.as...)
}

// newTestClient returns a client wired to g, seeded, recording attempts.
func newTestClient(t *testing.T, g *fakeGateway, opts ...Option) (*Client, *attemptLog) {
	t.Helper()
	log := &attemptLog{}
	opts = append([]Option{WithHTTPClient(&http.Client{Transport: g}), WithSeed(7), WithOnAttempt(log.add)}, opts...)
	c, err := New("http://gateway.test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, log
}

func TestClient_CreatePayment_reusesKeyAcrossAttempts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{
			problem(503, ""), problem(500, ""), func(http.ResponseWriter, *http.Request) error { return errors.New("connection reset by peer") },
			problem(409, ""), created,
		}}
		c, _ := newTestClient(t, g, WithMaxAttempts(5), WithTenant("acme"))
		p, err := c.CreatePayment(t.Context(), eur)
		if err != nil {
			t.Fatalf("CreatePayment: %v", err)
		}
		if p.ID != "pay_1" || p.Status != "succeeded" || p.Attempts != 5 {
			t.Errorf("CreatePayment = %+v; want pay_1 succeeded after 5 attempts", p)
		}
		reqs := g.requests()
		if len(reqs) != 5 {
			t.Fatalf("gateway saw %d attempts; want 5", len(reqs))
		}
		key := reqs[0].Key
		raw, ok := strings.CutPrefix(key, `"`)
		raw, ok2 := strings.CutSuffix(raw, `"`)
		if u, err := uuid.Parse(raw); !ok || !ok2 || err != nil || u.Version() != 4 {
			t.Errorf("Idempotency-Key = %s; want a quoted sf-string holding a UUIDv4 (IK-01, IK-11)", key)
		}
		for i, r := range reqs {
			if r.Key != key || r.Body != reqs[0].Body || r.Tenant != "acme" || r.Method != "POST" || r.Path != "/v1/payments" {
				t.Errorf("attempt %d = %+v; want the same key %s, body, tenant and route as attempt 1 (IK-10)", i+1, r, key)
			}
		}
		if p2, err := c.CreatePayment(t.Context(), eur); err != nil || p2.ID != "pay_1" {
			t.Fatalf("second CreatePayment: %v", err)
		}
		if k := g.requests()[5].Key; k == key {
			t.Errorf("a new logical operation reused key %s; want a fresh key (IK-09)", k)
		}
	})
}

func TestClient_CreatePayment_capsAttempts(t *testing.T) {
	t.Parallel()
	for _, max := range []int{1, 2, 4} {
		t.Run(strconv.Itoa(max), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(503, "")}}
				c, _ := newTestClient(t, g, WithMaxAttempts(max))
				_, err := c.CreatePayment(t.Context(), eur)
				var se *StatusError
				var re *RetryError
				if !errors.Is(err, ErrAttemptsExhausted) || !errors.As(err, &se) || !errors.As(err, &re) {
					t.Fatalf("CreatePayment error = %v; want a RetryError wrapping ErrAttemptsExhausted and a StatusError", err)
				}
				if n := len(g.requests()); n != max || re.Attempts != max || se.Status != 503 || se.Problem == nil || re.Key == "" {
					t.Errorf("attempts %d, RetryError %+v, StatusError %+v; want %d attempts, a 503 problem and the key", n, re, se, max)
				}
			})
		})
	}
}

func TestClient_CreatePayment_honoursRetryAfter(t *testing.T) {
	t.Parallel()
	const wait = 3 * time.Second
	// dated answers with a Retry-After date wait after the Date header, and a
	// Date header skewed 10s into the past: the wait must still be 3s.
	dated := func(status int, layout string) func(http.ResponseWriter, *http.Request) error {
		return func(w http.ResponseWriter, r *http.Request) error {
			date := time.Now().UTC().Add(-10 * time.Second).Truncate(time.Second)
			w.Header().Set("Date", date.Format(http.TimeFormat))
			return problem(status, date.Add(wait).Format(layout))(w, r)
		}
	}
	cases := map[string]func(http.ResponseWriter, *http.Request) error{
		"429 delay-seconds":   problem(429, "3"),
		"503 delay-seconds":   problem(503, "3"),
		"409 delay-seconds":   problem(409, "3"),
		"429 IMF-fixdate":     dated(429, http.TimeFormat),
		"503 rfc850":          dated(503, "Monday, 02-Jan-06 15:04:05 GMT"),
		"503 asctime":         dated(503, "Mon Jan _2 15:04:05 2006"),
		"429 many zeros of 3": problem(429, "0000003"),
	}
	for name, first := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{first, created}}
				c, log := newTestClient(t, g)
				if _, err := c.CreatePayment(t.Context(), eur); err != nil {
					t.Fatal(err)
				}
				reqs := g.requests()
				if len(reqs) != 2 {
					t.Fatalf("gateway saw %d attempts; want 2", len(reqs))
				}
				if gap := reqs[1].At.Sub(reqs[0].At); gap < wait || gap > wait+c.Policy().Bound(0) {
					t.Errorf("retry came %s after the answer; want in [Retry-After %s, + jitter bound] (HS-08, HS-03)", gap, wait)
				}
				if a := log.all()[0]; !a.HasRetryAfter || a.RetryAfter != wait {
					t.Errorf("Attempt 1 = %+v; want Retry-After %s recorded", a, wait)
				}
			})
		})
	}
}

func TestClient_CreatePayment_invalidRetryAfterFallsBackToBackoff(t *testing.T) {
	t.Parallel()
	for _, ra := range []string{"1.5s", "-1", "1.5", "soon", "120, 60"} {
		t.Run(ra, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(503, ra), created}}
				c, log := newTestClient(t, g)
				if _, err := c.CreatePayment(t.Context(), eur); err != nil {
					t.Fatal(err)
				}
				reqs := g.requests()
				if gap := reqs[1].At.Sub(reqs[0].At); gap > c.Policy().Bound(0) {
					t.Errorf("retry came %s after an invalid Retry-After; want backoff within %s (HS-09)", gap, c.Policy().Bound(0))
				}
				if a := log.all()[0]; a.HasRetryAfter || a.BadRetryAfter != ra {
					t.Errorf("Attempt 1 = %+v; want BadRetryAfter %q and no Retry-After", a, ra)
				}
			})
		})
	}
}

func TestClient_CreatePayment_doesNotRetry4xx(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 402, 403, 404, 408, 413, 422} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(status, "1"), created}}
				c, _ := newTestClient(t, g)
				_, err := c.CreatePayment(t.Context(), eur)
				var se *StatusError
				var re *RetryError
				if !errors.As(err, &se) || errors.As(err, &re) {
					t.Fatalf("CreatePayment error = %v; want a bare *StatusError", err)
				}
				if n := len(g.requests()); n != 1 || se.Status != status || se.Problem == nil || se.Problem.Status != status || se.Attempts != 1 {
					t.Errorf("%d attempts, StatusError %+v; want 1 attempt and the %d problem", n, se, status)
				}
			})
		})
	}
}

func TestClient_CreatePayment_deadlineCoversAllAttempts(t *testing.T) {
	t.Parallel()
	slow503 := func(w http.ResponseWriter, r *http.Request) error {
		select {
		case <-time.After(300 * time.Millisecond):
			return problem(503, "")(w, r)
		case <-r.Context().Done():
			return r.Context().Err()
		}
	}
	cases := []struct {
		name        string
		opts        []Option
		ctxDeadline time.Duration
		want        time.Duration
	}{
		{"WithDeadline", []Option{WithDeadline(time.Second)}, 0, time.Second},
		{"caller's context sooner", []Option{WithDeadline(10 * time.Second)}, 700 * time.Millisecond, 700 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{slow503}}
				c, _ := newTestClient(t, g, append(tc.opts, WithMaxAttempts(100))...)
				ctx := t.Context()
				if tc.ctxDeadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.ctxDeadline)
					defer cancel()
				}
				start := time.Now()
				deadline := start.Add(tc.want)
				_, err := c.CreatePayment(ctx, eur)
				if !errors.Is(err, ErrDeadline) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("CreatePayment error = %v; want ErrDeadline, also matching context.DeadlineExceeded", err)
				}
				if end := time.Now(); end.After(deadline) {
					t.Errorf("CreatePayment returned %s after start; want within the %s deadline (DL-08)", end.Sub(start), tc.want)
				}
				reqs := g.requests()
				if len(reqs) < 2 {
					t.Fatalf("gateway saw %d attempts; want retries inside the budget", len(reqs))
				}
				prev := tc.want + time.Millisecond
				for i, r := range reqs {
					ms, err := strconv.Atoi(r.Timeout)
					got := time.Duration(ms) * time.Millisecond
					if err != nil || !r.At.Before(deadline) || got > deadline.Sub(r.At) || got <= 0 || got >= prev {
						t.Errorf("attempt %d at +%s sent X-Request-Timeout-Ms %q; want a positive, decreasing value within the remaining %s (DL-04)",
							i+1, r.At.Sub(start), r.Timeout, deadline.Sub(r.At))
					}
					prev = got
				}
				if first := reqs[0].Timeout; first != strconv.Itoa(int(tc.want.Milliseconds())) {
					t.Errorf("first X-Request-Timeout-Ms = %s; want min(attempt timeout, budget) = %d", first, tc.want.Milliseconds())
				}
			})
		})
	}
}

func TestClient_CreatePayment_retriesAttemptTimeouts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{hang, created}}
		c, log := newTestClient(t, g, WithAttemptTimeout(500*time.Millisecond))
		p, err := c.CreatePayment(t.Context(), eur)
		if err != nil || p.Attempts != 2 {
			t.Fatalf("CreatePayment = %+v, %v; want success on attempt 2", p, err)
		}
		reqs := g.requests()
		if reqs[0].Timeout != "500" || reqs[1].At.Sub(reqs[0].At) < 500*time.Millisecond || reqs[0].Key != reqs[1].Key {
			t.Errorf("attempts %+v; want the first told 500 ms, the second after it timed out, same key", reqs)
		}
		a := log.all()[0]
		if !errors.Is(a.Err, ErrAttemptTimeout) || errors.Is(a.Err, context.DeadlineExceeded) || !a.Retry {
			t.Errorf("Attempt 1 = %+v; want ErrAttemptTimeout (not the overall deadline) and a retry", a)
		}
	})
}

func TestClient_CreatePayment_givesUpOnLongRetryAfter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		ra       string
		opts     []Option
		deadline bool
	}{
		{"over WithMaxRetryAfter", "31", nil, false},
		{"over a custom limit", "6", []Option{WithMaxRetryAfter(5 * time.Second)}, false},
		{"huge", "1000000", nil, false},
		{"over the remaining budget", "5", []Option{WithDeadline(3 * time.Second)}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(429, tc.ra), created}}
				c, _ := newTestClient(t, g, tc.opts...)
				start := time.Now()
				_, err := c.CreatePayment(t.Context(), eur)
				var se *StatusError
				if !errors.Is(err, ErrRetryAfterTooLong) || errors.Is(err, ErrDeadline) != tc.deadline || !errors.As(err, &se) || se.Status != 429 {
					t.Fatalf("CreatePayment error = %v; want ErrRetryAfterTooLong (ErrDeadline %v) with the 429", err, tc.deadline)
				}
				if waited := time.Since(start); waited != 0 || len(g.requests()) != 1 {
					t.Errorf("waited %s over %d attempts; want to give up at once (HS-10)", waited, len(g.requests()))
				}
			})
		})
	}
}

func TestClient_CreatePayment_cancelStopsTheWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(503, "5"), created}}
		c, _ := newTestClient(t, g)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := c.CreatePayment(ctx, eur)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrDeadline) || time.Since(start) != time.Second || len(g.requests()) != 1 {
			t.Errorf("CreatePayment = %v after %s and %d attempts; want context.Canceled at 1s after 1 attempt", err, time.Since(start), len(g.requests()))
		}
	})
}

func TestClient_CreatePayment_seedDeterminesWaits(t *testing.T) {
	t.Parallel()
	waits := func(seed uint64) []time.Duration {
		var ws []time.Duration
		synctest.Test(t, func(t *testing.T) {
			g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(503, "")}}
			c, log := newTestClient(t, g, WithSeed(seed), WithMaxAttempts(6))
			_, _ = c.CreatePayment(t.Context(), eur)
			for i, a := range log.all() {
				if a.Retry && a.Wait > c.Policy().Bound(i) {
					t.Errorf("wait %d = %s; want at most %s (BO-01)", i, a.Wait, c.Policy().Bound(i))
				}
				ws = append(ws, a.Wait)
			}
		})
		return ws
	}
	a, b, other := waits(1), waits(1), waits(2)
	if strings.Join(durs(a), ",") != strings.Join(durs(b), ",") {
		t.Errorf("seed 1 gave waits %v then %v; want the same", a, b)
	}
	if strings.Join(durs(a), ",") == strings.Join(durs(other), ",") {
		t.Errorf("seeds 1 and 2 gave the same waits %v; want jitter to depend on the seed", a)
	}
}

func durs(ds []time.Duration) []string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return s
}

func TestClient_GetPayment(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ok := func(w http.ResponseWriter, _ *http.Request) error {
			w.Header().Set("Content-Type", "application/json")
			_, err := w.Write([]byte(`{"id":"pay/1","amount":5,"currency":"USD","status":"succeeded"}`))
			return err
		}
		g := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(502, ""), ok}}
		c, _ := newTestClient(t, g)
		p, err := c.GetPayment(t.Context(), "pay/1")
		if err != nil || p.ID != "pay/1" || p.Attempts != 2 {
			t.Fatalf("GetPayment = %+v, %v; want pay/1 after 2 attempts", p, err)
		}
		for _, r := range g.requests() {
			if r.Method != "GET" || r.Path != "/v1/payments/pay%2F1" || r.Key != "" {
				t.Errorf("request %+v; want GET /v1/payments/pay%%2F1 without an Idempotency-Key", r)
			}
		}
		g404 := &fakeGateway{steps: []func(http.ResponseWriter, *http.Request) error{problem(404, "")}}
		c, _ = newTestClient(t, g404)
		var se *StatusError
		if _, err := c.GetPayment(t.Context(), "pay_x"); !errors.As(err, &se) || se.Status != 404 || len(g404.requests()) != 1 {
			t.Errorf("GetPayment(missing) = %v; want one attempt and a 404 StatusError", err)
		}
	})
}
