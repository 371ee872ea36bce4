package deadlines

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
)

// dlFake charges its dependency once within the caller's budget and
// answers 504 when it runs out. headersOnly is deadline-on-headers-only:
// the budget bounds the wait for the dependency's headers, not its body.
type dlFake struct {
	dep         string
	headersOnly bool
}

func (f *dlFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	budget, ok, err := headers.Timeout(r.Header)
	if err != nil || !ok {
		budget = time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), budget)
	defer cancel()
	rctx, rcancel := ctx, context.CancelFunc(func() {})
	if f.headersOnly {
		rctx, rcancel = context.WithCancel(context.WithoutCancel(ctx))
		defer rcancel()
	}
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, f.dep+"/charges", strings.NewReader("{}"))
	headers.SetTimeout(req.Header, headers.RequestTimeoutMs, time.Until(time.Now().Add(budget)))
	type answer struct {
		resp *http.Response
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		got <- answer{resp, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		rcancel() // no headers yet: the budget still bounds this wait
		w.WriteHeader(http.StatusGatewayTimeout)
		return
	}
	if a.err != nil {
		w.WriteHeader(http.StatusGatewayTimeout)
		return
	}
	defer a.resp.Body.Close()
	_, _ = io.Copy(io.Discard, a.resp.Body) // under headersOnly, however long the body takes
	w.WriteHeader(http.StatusCreated)
}

func dlFakeHarness(t *testing.T, f *dlFake) *check.Harness {
	t.Helper()
	// A charge's answer of the reference's size, so a trickle lasts seconds.
	st := checktest.StartCharging(t, f, &f.dep, `{"id":"ch_1","amount":1000,"currency":"EUR","status":"succeeded","reference":"pay_0123456789abcdef"}`)
	return &check.Harness{
		TargetURL: st.URL, Front: st.Front, Dependency: st.Dependency, Journal: st.Journal, Seed: 1,
		Explore: 2 * time.Second,
		Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments", EffectPath: "/charges",
			Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }},
	}
}

func TestDeadlineProperty_catchesHeadersOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("explores for seconds against a fake")
	}
	chk := check.Check{ID: "DL-03p", Run: deadlineProperty}
	good := check.Judge(context.Background(), dlFakeHarness(t, &dlFake{}), chk)
	if good.Status != reports.StatusPass {
		t.Fatalf("correct fake: %s %s%s; want a pass", good.Status, good.Observed, good.Reason)
	}
	bad := check.Judge(context.Background(), dlFakeHarness(t, &dlFake{headersOnly: true}), chk)
	if bad.Status != reports.StatusFail || !strings.Contains(bad.Observed, "past the budget") || len(bad.Counterexample) == 0 {
		t.Fatalf("headers-only fake: %s %s%s; want the trickle to hold it past the budget", bad.Status, bad.Observed, bad.Reason)
	}
	t.Logf("story:\n%s", strings.Join(bad.Counterexample, "\n"))
}
