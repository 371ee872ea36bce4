package certify

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/resilcheck/resilcheck/reference/defect"
	"github.com/resilcheck/resilcheck/reports"
)

// matrixWorkers certifications run at once. A certification spends most of
// its ~30 s waiting (Retry-After windows, deadlines, rate-limit windows) and
// about 1.5 s on CPU, so four at a time keep 2 cores far from saturated.
const matrixWorkers = 4

// TestMatrix certifies the correct reference (every check passes: no false
// positives) and the reference with each defect (exactly the expected checks
// fail: detection). It is the harness's own correctness bar.
func TestMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("certifies the reference stack 17 times")
	}
	cases := []defect.Name{""}
	for _, d := range defect.All() {
		cases = append(cases, d.Name)
	}
	results := certifyAll(t, cases)
	matrix := Matrix()
	for i, d := range cases {
		name := string(d)
		if name == "" {
			name = "correct-reference"
		}
		t.Run(name, func(t *testing.T) {
			res := results[i]
			if res.err != nil {
				t.Fatalf("Run: %v", res.err)
			}
			want := matrix[d]
			var failed []string
			for _, c := range res.report.Checks {
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
			t.Logf("failed: %v (%s, seed %d)", failed, res.report.Duration, res.report.Seed)
		})
	}
}

type certified struct {
	report *reports.Report
	err    error
}

// certifyAll certifies the reference once per defect, matrixWorkers at a time.
func certifyAll(t *testing.T, cases []defect.Name) []certified {
	out := make([]certified, len(cases))
	work := make(chan int)
	var wg sync.WaitGroup
	for range matrixWorkers {
		wg.Go(func() {
			for i := range work {
				var set defect.Set
				if cases[i] != "" {
					set = defect.Set{cases[i]: true}
				}
				res, err := Run(context.Background(), Config{Defects: set, Seed: 20261122 + uint64(i)})
				out[i].err = err
				if res != nil {
					out[i].report = res.Report
				}
			}
		})
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}
