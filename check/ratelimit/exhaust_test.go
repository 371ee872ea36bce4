package ratelimit

import (
	"testing"

	"github.com/resilcheck/resilcheck/reports"
)

// TestExhaustion_notRefused: an exhaustion that drew no 429 is
// inconclusive and says why it stopped short: its time ran out before its
// requests were spent, or they met transport errors.
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
		{"out of time", exhaustion{Sent: 151, Budget: 213, OutOfTime: true}, false,
			"no 429: 151 requests, 8 in flight, took the 5s allowed for 213"},
		{"out of time, with errors", exhaustion{Sent: 151, Budget: 213, OutOfTime: true, Errs: 2}, false,
			"no 429: 151 requests, 8 in flight, took the 5s allowed for 213; 2 met a transport error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := c.e.notRefused("no 429")
			if res.Status != reports.StatusInconclusive || res.Noisy != c.wantNoisy || res.Reason != c.wantText {
				t.Errorf("notRefused = %s, noisy %v, %q; want inconclusive, noisy %v, %q", res.Status, res.Noisy, res.Reason, c.wantNoisy, c.wantText)
			}
		})
	}
}
