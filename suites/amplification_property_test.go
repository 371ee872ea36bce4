package suites

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

// rbFake is a service that charges its dependency with up to 3 attempts,
// waiting 5 ms between them or the Retry-After asked for. perKind is the
// retry-cap-per-failure-kind bug: the cap counts only the attempts since
// the failure last changed kind.
type rbFake struct {
	dep     string
	perKind bool
	client  http.Client
}

func (f *rbFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var kind string
	for n, streak := 1, 0; ; n++ {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, f.dep+"/charges", strings.NewReader("{}"))
		req.Header.Set("Idempotency-Key", key)
		resp, err := f.client.Do(req)
		now, wait := "transport", 5*time.Millisecond
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 300 {
				w.WriteHeader(http.StatusCreated)
				return
			}
			now = strconv.Itoa(resp.StatusCode)
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				wait = time.Duration(s) * time.Second
			}
		}
		if now != kind {
			kind, streak = now, 0
		}
		streak++
		if count := map[bool]int{false: n, true: streak}[f.perKind]; count >= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		time.Sleep(wait)
	}
}

func rbFakeHarness(t *testing.T, f *rbFake) *Harness {
	t.Helper()
	f.client.Timeout = 300 * time.Millisecond // a hang is a transport failure
	st := startFakeStack(t, f, &f.dep)
	return &Harness{
		TargetURL: st.frontURL, Front: st.front, Dependency: st.dep, Journal: st.journal, Seed: 1,
		Explore: time.Second,
		// The fake has no budget or breaker: the floor lets its outages pass.
		Amplification: AmplificationConfig{RetryFloor: 100},
		Operation: Operation{Method: http.MethodPost, Path: "/v1/payments", EffectPath: "/charges",
			Render: func(v Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }},
	}
}

func TestRetryProperty_catchesCapPerKind(t *testing.T) {
	if testing.Short() {
		t.Skip("explores for a second or more against a fake")
	}
	check := Check{ID: "RB-01p", Run: retryProperty}
	good := runOne(context.Background(), rbFakeHarness(t, &rbFake{}), check)
	if good.Status != reports.StatusPass {
		t.Fatalf("correct fake: %s %s%s; want a pass", good.Status, good.Observed, good.Reason)
	}
	bad := runOne(context.Background(), rbFakeHarness(t, &rbFake{perKind: true}), check)
	if bad.Status != reports.StatusFail || !strings.Contains(bad.Observed, "above the cap") || len(bad.Counterexample) == 0 {
		t.Fatalf("per-kind fake: %s %s%s; want a failure above the cap", bad.Status, bad.Observed, bad.Reason)
	}
	again := runOne(context.Background(), rbFakeHarness(t, &rbFake{perKind: true}), check)
	if !slices.Equal(again.Counterexample, bad.Counterexample) {
		t.Errorf("the same seed told\n%s\nthen\n%s", strings.Join(bad.Counterexample, "\n"), strings.Join(again.Counterexample, "\n"))
	}
	// The reproduce line's replay: exactly the cases up to the failing one,
	// no time budget.
	h := rbFakeHarness(t, &rbFake{perKind: true})
	h.Explore, h.ExploreCases = 0, bad.FailedCase
	byCount := runOne(context.Background(), h, check)
	if bad.FailedCase == 0 || byCount.FailedCase != bad.FailedCase || !slices.Equal(byCount.Counterexample, bad.Counterexample) {
		t.Errorf("replaying %d cases failed at case %d telling\n%s\nwant\n%s", bad.FailedCase, byCount.FailedCase,
			strings.Join(byCount.Counterexample, "\n"), strings.Join(bad.Counterexample, "\n"))
	}
	t.Logf("story (case %d):\n%s", bad.FailedCase, strings.Join(bad.Counterexample, "\n"))
}
