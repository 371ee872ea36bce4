package clients

import (
	"context"
	"testing"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
	"github.com/resilcheck/resilcheck/reports"
)

// TestSuite_judge: a client check judged through the kit reads its needs
// from the suite's Config and its runs from those Run kept in the harness,
// and is inconclusive without runs rather than judging none.
func TestSuite_judge(t *testing.T) {
	threeAttempts := &ScenarioRun{Scenario: Scenario{ID: "s"}, id: "s",
		Attempts: []faults.Entry{{Status: 503}, {Status: 503}, {Status: 200}}}
	for _, c := range []struct {
		name   string
		policy Policy
		runs   []*ScenarioRun
		want   reports.Status
	}{
		{"no cap declared", Policy{}, []*ScenarioRun{threeAttempts}, reports.StatusNotApplicable},
		{"no runs kept", Policy{MaxAttempts: 3}, nil, reports.StatusInconclusive},
		{"within the cap", Policy{MaxAttempts: 3}, []*ScenarioRun{threeAttempts}, reports.StatusPass},
		{"past the cap", Policy{MaxAttempts: 2}, []*ScenarioRun{threeAttempts}, reports.StatusFail},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Suite(Config{Policy: c.policy})
			h := &check.Harness{Journal: faults.NewJournal(), Suites: []check.Suite{s}}
			if c.runs != nil {
				*keptRuns(h) = c.runs
			}
			cl01, err := selectChecks(s.Checks, []string{"cl-01"})
			if err != nil {
				t.Fatal(err)
			}
			if got := check.Judge(context.Background(), h, cl01[0]); got.Status != c.want {
				t.Errorf("CL-01 = %s (%s%s); want %s", got.Status, got.Observed, got.Reason, c.want)
			}
		})
	}
}
