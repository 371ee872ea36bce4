package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// throttlingMatrix: the defects the throttling suite catches.
// throttle-never lets the refused load through (TH-01) and, never having
// engaged, recovers at once (TH-02 passes). throttle-stuck engages like the
// correct throttler (TH-01 passes) and never lets the traffic back (TH-02).
// RB-05 drives a 503 outage (or resets, drawn by the seed) and then wants
// requests to succeed after the declared breaker recovery: when its draw is
// 503 and the outage engaged the stuck throttler, it truly fails.
var throttlingMatrix = map[defect.Name]Expectation{
	defect.ThrottleNever: {Must: []string{"TH-01"}},
	defect.ThrottleStuck: {Must: []string{"TH-02"}, May: []string{"RB-05"}},
}
