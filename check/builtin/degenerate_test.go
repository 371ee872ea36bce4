package builtin

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/check/checktest"
	"github.com/resilcheck/resilcheck/reports"
)

// TestCase_degenerate: a check that would pass against a target that
// refuses every request (a wrong path or credential in the spec) is
// inconclusive with the counts; one that got real answers still passes.
func TestCase_degenerate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		want   reports.Status
	}{
		{"every request 404", http.StatusNotFound, reports.StatusInconclusive},
		{"every request 401", http.StatusUnauthorized, reports.StatusInconclusive},
		{"served", http.StatusCreated, reports.StatusPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var dep string
			fake := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/healthz" {
					return
				}
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, `{"status":%d}`, tc.status)
			})
			st := checktest.Start(t, fake, &dep)
			h := &check.Harness{TargetURL: st.URL, Front: st.Front, Dependency: st.Dependency, Journal: st.Journal, Seed: 1,
				Operation: check.Operation{Method: http.MethodPost, Path: "/v1/payments",
					Render: func(v check.Values, _ bool) ([]byte, error) { return fmt.Appendf(nil, `{"amount":%d}`, v.Amount), nil }}}
			res := judged(t, h, "IK-14", tc.want)
			if tc.want == reports.StatusInconclusive && !strings.Contains(res.Reason, "degenerate run") {
				t.Errorf("reason %q does not say degenerate run", res.Reason)
			}
		})
	}
}
