package certify

import (
	"context"
	"testing"

	"github.com/resilcheck/resilcheck/internal/launch"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
	"github.com/resilcheck/resilcheck/internal/reference/target"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// suiteDefects is the correct reference ("") and every defect of the
// stack that suite must catch.
func suiteDefects(suite string) []defect.Name {
	cases := []defect.Name{""}
	for _, d := range defect.All() {
		if d.Contract == suite {
			cases = append(cases, d.Name)
		}
	}
	return cases
}

// certifySuiteCase certifies the reference with defect d and suite alone,
// its spec given the lines extra, on seed, and holds the report to the
// defect matrix: exactly the expected checks fail, at the service, and
// none is not applicable.
func certifySuiteCase(t *testing.T, d defect.Name, suite, extra string, seed uint64) {
	t.Helper()
	certifySuiteCaseWant(t, d, suite, extra, seed, target.Matrix()[d])
}

// certifySuiteCaseWant is certifySuiteCase holding the report to want.
func certifySuiteCaseWant(t *testing.T, d defect.Name, suite, extra string, seed uint64, want target.Expectation) {
	t.Helper()
	kinds := launch.Kinds{targets.KindReference: target.Kind()}
	tg, err := targets.Parse(caseName(d)+".yaml", []byte(referenceSpec(d)+extra), targets.WithKinds(kinds.Specs()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Target: tg, Kinds: kinds, Seed: seed, Suites: []string{suite}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	failed := judgeMatrixCase(t, d, res.Report, want, "service")
	for _, c := range res.Report.Checks {
		if c.Status == reports.StatusNotApplicable {
			t.Errorf("%s not applicable: %s", c.ID, c.Reason)
		}
	}
	t.Logf("failed: %v (%s)", failed, res.Report.Duration)
}
