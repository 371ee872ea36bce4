package hedging

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/reports"
)

// strayFake hedges its dependency call as declared (a copy after delay
// while the first is outstanding, the losers cancelled once one succeeds)
// and, before its own calls for request strayOn, sends a late copy of the
// previous request's call, let go after 30 ms: what the reference under
// hedge-no-delay did on a busy runner, 2.7 ms after that request was
// answered.
type strayFake struct {
	dep     string
	delay   time.Duration
	strayOn int

	mu   sync.Mutex
	n    int
	last string
}

func (f *strayFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/payments" {
		return
	}
	key := "pay_" + r.Header.Get("Idempotency-Key")
	f.mu.Lock()
	f.n++
	n, prev := f.n, f.last
	f.last = key
	f.mu.Unlock()
	if n == f.strayOn && prev != "" {
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Millisecond)
		f.call(ctx, prev)
		cancel()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel() // lets the losers go
	won := make(chan bool, 2)
	go func() { won <- f.call(ctx, key) }()
	select {
	case ok := <-won:
		f.answer(w, ok)
		return
	case <-time.After(f.delay):
	}
	go func() { won <- f.call(ctx, key) }()
	f.answer(w, <-won || <-won)
}

func (f *strayFake) answer(w http.ResponseWriter, ok bool) {
	if ok {
		w.WriteHeader(http.StatusCreated)
		return
	}
	w.WriteHeader(http.StatusBadGateway)
}

// call charges once under key; it reports a success.
func (f *strayFake) call(ctx context.Context, key string) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.dep+"/charges", bytes.NewReader([]byte(`{"amount":1}`)))
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 300
}

// TestLateCopy_ownCallsJudged: a late copy of an earlier request that
// takes the hold meant for a request's first call is not that request's
// call; HD-04 and HD-05 judge the request's own copies, placing the hold
// again, and pass a fake that keeps both contracts (before, HD-04 was
// inconclusive and HD-05 not applicable).
func TestLateCopy_ownCallsJudged(t *testing.T) {
	for _, id := range []string{"HD-04", "HD-05"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			policy := check.Policy{Hedging: check.HedgingPolicy{Delay: 100 * time.Millisecond}}
			// The check's own request follows the heal's streak.
			f := &strayFake{delay: policy.Hedging.Delay, strayOn: policy.Retry.HealStreak() + 1}
			st := checktest.Start(t, f, &f.dep)
			h := st.Harness()
			h.Policy = policy
			h.Operation = check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectMethod: http.MethodPost, EffectPath: "/charges",
				Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }}
			h.Suites = []check.Suite{Suite(Config{})}
			res := check.Judge(t.Context(), h, checkByID(t, id))
			if res.Status != reports.StatusPass {
				t.Fatalf("status %s, want pass; observed %q, reason %q", res.Status, res.Observed, res.Reason)
			}
			var strays int
			for _, e := range st.Journal.Snapshot() {
				if e.Side == "dependency" && e.Rule != "" && !e.ClientGone.IsZero() && e.ClientGone.Sub(e.Received) < 60*time.Millisecond {
					strays++
				}
			}
			if strays == 0 {
				t.Fatalf("no late copy took the hold: the fake did not stage the case; observed %q", res.Observed)
			}
			t.Logf("observed: %s", res.Observed)
		})
	}
}

// checkByID returns the hedging check with id.
func checkByID(t *testing.T, id string) check.Check {
	t.Helper()
	for _, c := range checks() {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s", id)
	return check.Check{}
}
