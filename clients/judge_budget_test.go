package clients

import (
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestJudgeBudget_headers: CL-12 passes a budget within the deadline, is
// not applicable without one, and fails one no server can read, which
// used to count as no header at all.
func TestJudgeBudget_headers(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    reports.Status
	}{
		{"within the deadline", map[string]string{"X-Request-Timeout-Ms": "4000"}, reports.StatusPass},
		{"past the deadline", map[string]string{"X-Request-Timeout-Ms": "9000"}, reports.StatusFail},
		{"none", nil, reports.StatusNotApplicable},
		{"grpc-timeout without a unit", map[string]string{"Grpc-Timeout": "100"}, reports.StatusFail},
		{"a duration in a milliseconds header", map[string]string{"X-Request-Timeout-Ms": "1.5s"}, reports.StatusFail},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := &ScenarioRun{Scenario: Scenario{ID: "ok"}, id: "ok",
				Attempts: []faults.Entry{{Status: 200, Received: t0, Finished: t0, Headers: c.headers}}}
			j := &judging{policy: Policy{Deadline: 5 * time.Second}, tol: Tolerance{}.withDefaults(), runs: []*ScenarioRun{run}}
			if got := judgeBudget(j); got.Status != c.want {
				t.Errorf("judgeBudget = %s (%s%s); want %s", got.Status, got.Observed, got.Reason, c.want)
			}
		})
	}
}
