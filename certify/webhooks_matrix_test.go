package certify

import (
	"context"
	"testing"

	"github.com/resilcheck/resilcheck/check/webhooks"
	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// TestWebhooks_matrix certifies the reference with the webhooks suite
// alone, correct (every check passes) and with each defect of the suite's
// contract (exactly its checks fail, at the service): the proof of the
// defects TestMatrix leaves out (Expectation.Direct), and a fast one of the
// rest. The receiver shares no code with the payments route, so the other
// suites' verdicts cannot move.
func TestWebhooks_matrix(t *testing.T) {
	cases := []defect.Name{""}
	for _, d := range defect.All() {
		if d.Contract == webhooks.Name {
			cases = append(cases, d.Name)
		}
	}
	matrix := target.Matrix()
	for i, d := range cases {
		t.Run(caseName(d), func(t *testing.T) {
			kinds := launch.Kinds{targets.KindReference: target.Kind()}
			tg, err := targets.Parse(caseName(d)+".yaml", []byte(referenceSpec(d)+"concurrency: 2\n"), targets.WithKinds(kinds.Specs()))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Config{Target: tg, Kinds: kinds, Seed: 20261127 + uint64(i), Suites: []string{webhooks.Name}})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			failed := judgeMatrixCase(t, d, res.Report, matrix[d], "service")
			for _, c := range res.Report.Checks {
				if c.Status == reports.StatusNotApplicable {
					t.Errorf("%s not applicable: %s", c.ID, c.Reason)
				}
			}
			t.Logf("failed: %v (%s)", failed, res.Report.Duration)
		})
	}
}
