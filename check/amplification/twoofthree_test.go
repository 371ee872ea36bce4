package amplification

import (
	"strings"
	"testing"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/reports"
)

// TestTwoOfThree: a first failure stands only when a second or a third
// sample repeats it, and no sample is taken that the verdicts before it
// did not call for.
func TestTwoOfThree(t *testing.T) {
	const (
		pass = reports.StatusPass
		fail = reports.StatusFail
		inc  = reports.StatusInconclusive
	)
	tests := []struct {
		name    string
		verdict []reports.Status // the judge's verdict on sample n
		broken  int              // the sample that could not be taken; -1 none
		want    reports.Status
		samples int    // samples taken
		says    string // in the verdict's observed text or reason
	}{
		{"a pass stands", []reports.Status{pass}, -1, pass, 1, "sample 0"},
		{"two failures", []reports.Status{fail, fail}, -1, fail, 2, "in two samples; the first: sample 0"},
		{"confirmed by the third", []reports.Status{fail, pass, fail}, -1, fail, 3, "in two samples of three; the first: sample 0; the third: sample 2; the second passed: sample 1"},
		{"outvoted", []reports.Status{fail, pass, pass}, -1, pass, 3, "the first of three samples failed and the other two passed"},
		{"second inconclusive", []reports.Status{fail, inc}, -1, inc, 2, "sample 1"},
		{"first not taken", nil, 0, inc, 1, "broken 0"},
		{"second not taken", []reports.Status{fail}, 1, inc, 2, "a second to confirm it could not be taken: broken 1"},
		{"third not taken", []reports.Status{fail, pass}, 2, inc, 3, "a third to decide could not be taken: broken 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			taken := 0
			sample := func(n int) *backoffSample {
				if n != taken {
					t.Fatalf("sample %d asked for after %d", n, taken)
				}
				taken++
				s := &backoffSample{rounds: n} // marks the sample's number for the judge
				if n == tt.broken {
					s.reason = "broken " + string(rune('0'+n))
				}
				return s
			}
			judge := func(s *backoffSample) check.Result {
				n := s.rounds
				obs := "sample " + string(rune('0'+n))
				switch tt.verdict[n] {
				case fail:
					return check.Fail("want", obs)
				case pass:
					return check.Pass("want", obs)
				}
				return check.Inconclusive("%s", obs)
			}
			res := twoOfThree(sample, judge)
			if res.Status != tt.want || taken != tt.samples {
				t.Fatalf("%s after %d samples, want %s after %d: %s%s", res.Status, taken, tt.want, tt.samples, res.Observed, res.Reason)
			}
			if got := res.Observed + res.Reason; !strings.Contains(got, tt.says) {
				t.Errorf("verdict says %q, want it to say %q", got, tt.says)
			}
		})
	}
}
