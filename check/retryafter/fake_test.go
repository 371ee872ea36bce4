package retryafter

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
)

// raFake is a tiny service with one dependency, broken in the ways no
// reference defect is, to prove HS-09, HS-10 and RL-09 can fail.
type raFake struct {
	dep string // the dependency proxy's URL
	// hugeWait honours any Retry-After, giving up only a second after the
	// caller's budget (HS-10's defect).
	hugeWait bool
	// invalidStops stops retrying on an unparseable Retry-After (HS-09's).
	invalidStops bool
	// freshKeys sends each attempt with a key of its own.
	freshKeys bool
	// resetAhead answers every request 429 with Retry-After: 1 and a
	// RateLimit reset of 3 s (RL-09's).
	resetAhead bool
}

func (f *raFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.resetAhead {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("RateLimit", `"tenant";r=0;t=3`)
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	budget, ok, _ := headers.Timeout(r.Header)
	if !ok {
		budget = 2 * time.Second
	}
	deadline := time.Now().Add(budget)
	if f.hugeWait {
		deadline = deadline.Add(time.Second)
	}
	ctx, cancel := context.WithDeadline(r.Context(), deadline)
	defer cancel()
	for i := range 3 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.dep+"/charges", bytes.NewReader([]byte(`{}`)))
		req.Header.Set("Idempotency-Key", r.Header.Get("Idempotency-Key"))
		if f.freshKeys {
			req.Header.Set("Idempotency-Key", fmt.Sprintf("%s-%d", r.Header.Get("Idempotency-Key"), i))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			break
		}
		resp.Body.Close()
		if resp.StatusCode < 300 {
			w.WriteHeader(http.StatusCreated)
			return
		}
		wait := 10 * time.Millisecond
		if v := resp.Header.Get("Retry-After"); v != "" {
			ra, err := headers.ParseRetryAfter(v, time.Now())
			if err != nil && f.invalidStops {
				break
			}
			if err == nil {
				wait = max(wait, ra.Delay)
			}
		}
		if !f.hugeWait && time.Now().Add(wait).After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		if ctx.Err() != nil {
			break
		}
	}
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
}

// raFakeHarness starts front proxy → fake → dependency proxy (a stand-in
// that charges) on loopback.
func raFakeHarness(t *testing.T, f *raFake) *check.Harness {
	t.Helper()
	st := checktest.Start(t, f, &f.dep)
	frontURL, front, dep, j := st.URL, st.Front, st.Dependency, st.Journal
	return &check.Harness{
		TargetURL: frontURL, Front: front, Dependency: dep, Journal: j, Seed: 1,
		Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectMethod: http.MethodPost, EffectPath: "/charges",
			Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }},
		Suites: []check.Suite{Suite(Config{Budget: 500 * time.Millisecond, AnswerSlack: 300 * time.Millisecond, BreakerFlush: 1})},
		Policy: check.Policy{RateLimitProbe: "/v1/limits"},
	}
}

func TestRetryAfter_catchesUnfitTargets(t *testing.T) {
	cases := []struct {
		name string
		fake raFake
		id   string
	}{
		{"HS-10 waits out a huge Retry-After", raFake{hugeWait: true}, "HS-10"},
		{"HS-09 stops retrying on an invalid Retry-After", raFake{invalidStops: true}, "HS-09"},
		{"HS-09 stops retrying, a fresh key per attempt", raFake{invalidStops: true, freshKeys: true}, "HS-09"},
		{"RL-09 Retry-After earlier than the reset", raFake{resetAhead: true}, "RL-09"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := c.fake
			h := raFakeHarness(t, &f)
			res := check.Judge(t.Context(), h, raCheckByID(t, c.id))
			if res.Status != reports.StatusFail {
				t.Fatalf("status %s, want fail; observed %q, reason %q", res.Status, res.Observed, res.Reason)
			}
			t.Logf("observed: %s", res.Observed)
		})
	}
}

// TestRetryAfter_passesFitFake: a fit target passes, whatever keys its
// attempts carry.
func TestRetryAfter_passesFitFake(t *testing.T) {
	for _, freshKeys := range []bool{false, true} {
		t.Run(fmt.Sprintf("freshKeys=%v", freshKeys), func(t *testing.T) {
			t.Parallel()
			h := raFakeHarness(t, &raFake{freshKeys: freshKeys})
			for _, id := range []string{"HS-10", "HS-09"} {
				if res := check.Judge(t.Context(), h, raCheckByID(t, id)); res.Status != reports.StatusPass {
					t.Errorf("%s: status %s, want pass; observed %q, reason %q", id, res.Status, res.Observed, res.Reason)
				}
			}
		})
	}
}

// raCheckByID returns the Retry-After check with id.
func raCheckByID(t *testing.T, id string) check.Check {
	t.Helper()
	for _, c := range checks() {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no Retry-After check %s", id)
	return check.Check{}
}
