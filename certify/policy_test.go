package certify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/headers"
	"github.com/resilcheck/resilcheck/reports"
)

// TestRun_declaredPolicy certifies a loopback service that makes 5 attempts
// per request through the spec path: RB-01 holds it to max_attempts when
// the spec declares it, and to the documented default of 3 when not.
func TestRun_declaredPolicy(t *testing.T) {
	t.Parallel()
	dep := freeListen(t)
	service := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/payments" {
			return
		}
		ctx := r.Context()
		if budget, ok, _ := headers.Timeout(r.Header); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, budget)
			defer cancel()
		}
		for range 5 {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+dep+"/charges", nil)
			req.Header.Set("Idempotency-Key", r.Header.Get("Idempotency-Key"))
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode < 300 {
					w.WriteHeader(http.StatusCreated)
					return
				}
			}
			if ctx.Err() != nil {
				break
			}
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	base := fmt.Sprintf("version: 1\nkind: running\nservice: {url: %q, health: /healthz, startup_timeout: 2s}\n"+
		"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n"+
		"dependencies: [{name: processor, listen: %q, path: /charges}]\neffects: {ledger: {dependency: processor}}\n", service, dep)
	for _, tt := range []struct {
		name, policy string
		want         reports.Status
	}{
		{"5 attempts declared", "policy: {retry: {max_attempts: 5}}\n", reports.StatusPass},
		{"nothing declared", "", reports.StatusFail},
	} {
		res, err := Run(context.Background(), Config{Target: parseSpec(t, base+tt.policy), Checks: []string{"RB-01"}, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := res.Report.Checks[0]
		if c.Status != tt.want {
			t.Errorf("%s: RB-01 %s (%s%s), want %s", tt.name, c.Status, c.Observed, c.Reason, tt.want)
		}
	}
}

// TestRun_declaredNoRetry certifies a loopback service that never retries
// its dependency (one call per request; 503 with Retry-After when it fails,
// 504 by the caller's budget) and answers correctly otherwise. Declaring
// max_attempts 1, the checks that judge how it retries are not applicable,
// saying why, instead of inconclusive; the checks that hold for it too run
// and pass. Undeclared, the same checks run and find nothing to judge.
func TestRun_declaredNoRetry(t *testing.T) {
	t.Parallel()
	dep := freeListen(t)
	service := noRetryService(t, dep)
	spec := fmt.Sprintf("version: 1\nkind: running\nservice: {url: %q, health: /healthz, startup_timeout: 2s}\n"+
		"operations: [{name: pay, path: /v1/payments, body: '{\"amount\": {{.Amount}}}'}]\n"+
		"dependencies: [{name: processor, listen: %q, path: /charges}]\neffects: {ledger: {dependency: processor}}\n"+
		"conventions: {max_budget: 3s}\n", service, dep)
	retries := []string{"BO-01", "BO-08", "RB-15", "HS-03", "HS-08", "RL-10"} // judge how it retries
	still := []string{"RB-01", "RB-01b", "HS-13", "HS-10"}                    // hold for a service that never retries
	const why = "the target declares max_attempts 1: it does not retry"
	for _, tt := range []struct {
		name, policy string
		na           bool // want the retry checks not applicable, saying why
	}{
		{"max_attempts 1 declared", "policy: {retry: {max_attempts: 1, backoff: full, base: 50ms}}\n", true},
		{"nothing declared", "policy: {retry: {backoff: full, base: 50ms}}\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), Config{Target: parseSpec(t, spec+tt.policy), Checks: append(slices.Clone(retries), still...), Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Report.Checks) == 0 { // an aborted run, which the loop below would pass
				t.Fatalf("the run judged no check: aborted %q", res.Report.Aborted)
			}
			for _, c := range res.Report.Checks {
				t.Logf("%-6s %-14s %s%s", c.ID, c.Status, c.Observed, c.Reason)
				switch {
				case slices.Contains(still, c.ID) && c.Status != reports.StatusPass:
					t.Errorf("%s %s (%s%s); want pass: it judges what holds without retries", c.ID, c.Status, c.Observed, c.Reason)
				case slices.Contains(retries, c.ID) && tt.na && (c.Status != reports.StatusNotApplicable || c.Reason != why):
					t.Errorf("%s %s (%s%s); want not applicable: %s", c.ID, c.Status, c.Observed, c.Reason, why)
				case slices.Contains(retries, c.ID) && !tt.na && c.Status == reports.StatusNotApplicable:
					t.Errorf("%s not applicable (%s); want it run when max_attempts 1 is not declared", c.ID, c.Reason)
				}
			}
		})
	}
}

// noRetryService is a payments service that calls its dependency at dep
// once per request: it never retries (and keeps no idle connection, since
// net/http re-sends a request carrying Idempotency-Key on a reused
// connection that failed), passes the caller's budget on, answers 504 by
// it, and answers a failed call 503 with Retry-After: 1 and a 4xx with itself.
func noRetryService(t *testing.T, dep string) string {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/payments" {
			return
		}
		body, _ := io.ReadAll(r.Body)
		budget, ok, err := headers.Timeout(r.Header)
		switch {
		case err != nil:
			w.WriteHeader(http.StatusBadRequest)
			return
		case !ok:
			budget = 2 * time.Second
		case budget <= 0:
			w.WriteHeader(http.StatusGatewayTimeout)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), budget)
		defer cancel()
		deadline, _ := ctx.Deadline()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+dep+"/charges", bytes.NewReader(body))
		req.Header.Set("Idempotency-Key", r.Header.Get("Idempotency-Key"))
		headers.SetTimeout(req.Header, headers.RequestTimeoutMs, time.Until(deadline))
		resp, err := client.Do(req)
		switch {
		case ctx.Err() != nil:
			w.WriteHeader(http.StatusGatewayTimeout)
		case err != nil:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			switch {
			case resp.StatusCode < 300:
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write(b)
			case resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests:
				w.WriteHeader(resp.StatusCode)
			default:
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}
	})
}
