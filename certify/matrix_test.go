package certify

import (
	"context"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/reference/defect"
	"github.com/resilcheck/resilcheck/reports"
)

// TestMatrix certifies the correct reference (every check passes: no false
// positives) and the reference with each defect (exactly the expected checks
// fail: detection). It is the harness's own correctness bar.
func TestMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies the reference stack 17 times")
	}
	matrix := Matrix()
	cases := []defect.Name{""}
	for _, d := range defect.All() {
		cases = append(cases, d.Name)
	}
	for _, d := range cases {
		name := string(d)
		if name == "" {
			name = "correct-reference"
		}
		t.Run(name, func(t *testing.T) {
			var set defect.Set
			if d != "" {
				set = defect.Set{d: true}
			}
			res, err := Run(context.Background(), Config{Defects: set, Seed: 20261122})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			want := matrix[d]
			var failed []string
			for _, c := range res.Report.Checks {
				switch {
				case c.Status == reports.StatusFail:
					failed = append(failed, c.ID)
					if !want.Allows(c.ID) {
						t.Errorf("%s failed unexpectedly: expected %s; observed %s", c.ID, c.Expected, c.Observed)
					}
				case c.Status == reports.StatusInconclusive:
					t.Errorf("%s inconclusive: %s", c.ID, c.Reason)
				}
			}
			for _, id := range want.Must {
				if !slices.Contains(failed, id) {
					t.Errorf("%s did not catch %s (failed: %v)", id, d, failed)
				}
			}
			t.Logf("failed: %v (%s)", failed, res.Report.Duration)
		})
	}
}
