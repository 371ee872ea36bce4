package ratelimit

import (
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

// TestExhaustion_notRefused: a load that ran out of time before its
// requests were spent is the runner's (or the target's) slowness, a noisy
// runner's verdict that runs the check again; one that spent them all
// without a 429 is plain inconclusive, and says what errors it met.
func TestExhaustion_notRefused(t *testing.T) {
	for _, c := range []struct {
		name      string
		e         exhaustion
		wantNoisy bool
		wantText  string
	}{
		{"budget spent", exhaustion{Sent: 213, Budget: 213}, false,
			"no 429"},
		{"budget spent, with errors", exhaustion{Sent: 213, Budget: 213, Errs: 4}, false,
			"no 429: 4 met a transport error"},
		{"out of time", exhaustion{Sent: 151, Budget: 213, OutOfTime: true}, true,
			"noisy runner: no 429: 151 requests, 8 in flight, took the 5s allowed for 213"},
		{"out of time, with errors", exhaustion{Sent: 151, Budget: 213, OutOfTime: true, Errs: 2}, true,
			"noisy runner: no 429: 151 requests, 8 in flight, took the 5s allowed for 213; 2 met a transport error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := c.e.notRefused("no 429")
			if res.Status != reports.StatusInconclusive || res.Noisy != c.wantNoisy || res.Reason != c.wantText {
				t.Errorf("notRefused = %s, noisy %v, %q; want inconclusive, noisy %v, %q", res.Status, res.Noisy, res.Reason, c.wantNoisy, c.wantText)
			}
		})
	}
}
