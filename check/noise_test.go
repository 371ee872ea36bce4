package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resilcheck/resilcheck/reports"
)

func TestP99(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 1; i <= 200; i++ {
		ds = append(ds, time.Duration(i))
	}
	tests := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{7}, 7},
		{ds[:100], 99},
		{ds, 198},
	}
	for _, tt := range tests {
		if got := p99(tt.in); got != tt.want {
			t.Errorf("p99 of %d values = %v, want %v", len(tt.in), got, tt.want)
		}
	}
}

// TestHarness_tolerance: the slack is the declared one, raised to 4× the
// runner's noise; past 500 ms of slack a timed check is inconclusive and an
// untimed one still runs.
func TestHarness_tolerance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		h     Harness
		want  time.Duration
		noisy bool
	}{
		{"default", Harness{}, 50 * time.Millisecond, false},
		{"declared", Harness{Tolerance: 80 * time.Millisecond}, 80 * time.Millisecond, false},
		{"quiet runner", Harness{Noise: RunnerNoise{RoundTrip: time.Millisecond, Overshoot: 2 * time.Millisecond, Samples: 100}}, 50 * time.Millisecond, false},
		{"busy runner", Harness{Noise: RunnerNoise{RoundTrip: time.Millisecond, Overshoot: 30 * time.Millisecond, Samples: 100}}, 120 * time.Millisecond, false},
		{"too noisy", Harness{Noise: RunnerNoise{RoundTrip: 200 * time.Millisecond, Samples: 100}}, 800 * time.Millisecond, true},
	}
	timedCheck := Check{ID: "RB-15", Suite: "retry-amplification", Timed: true}
	untimed := Check{ID: "IK-03", Suite: "idempotency"}
	for _, tt := range tests {
		if got := tt.h.Slack(); got != tt.want {
			t.Errorf("%s: tolerance %v, want %v", tt.name, got, tt.want)
		}
		if why := tt.h.tooNoisy(timedCheck); (why != "") != tt.noisy {
			t.Errorf("%s: tooNoisy(RB-15) = %q, want noisy %v", tt.name, why, tt.noisy)
		}
		if why := tt.h.tooNoisy(untimed); why != "" {
			t.Errorf("%s: an untimed check is held to the noise: %q", tt.name, why)
		}
	}
	h := &Harness{Noise: RunnerNoise{RoundTrip: 200 * time.Millisecond, Samples: 100}}
	res := Judge(t.Context(), h, Check{ID: "BO-08", Suite: "retry-amplification", Timed: true, Run: func(ctx context.Context, c *Case) Result { return Pass("", "") }})
	if res.Status != reports.StatusInconclusive || !strings.Contains(res.Reason, "noisy runner") {
		t.Errorf("BO-08 on a noisy runner: %s %q, want inconclusive (noisy runner)", res.Status, res.Reason)
	}
}

// TestMeasureNoise measures this machine: a positive round trip and a
// non-negative overshoot, as many samples as asked.
func TestMeasureNoise(t *testing.T) {
	t.Parallel()
	n, err := MeasureNoise(t.Context(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if n.RoundTrip <= 0 || n.Overshoot < 0 || n.Samples != 20 {
		t.Errorf("noise %+v: want a positive round trip, a non-negative overshoot, 20 samples", n)
	}
	t.Logf("%s", n)
}
