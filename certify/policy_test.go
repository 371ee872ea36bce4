package certify

import (
	"context"
	"fmt"
	"net/http"
	"testing"

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
