package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// throttlingMatrix: the defects the throttling suite catches.
// throttle-never lets the refused load through (TH-01) and, never having
// engaged, recovers at once (TH-02 passes). throttle-stuck engages like the
// correct throttler (TH-01 passes) and never lets the traffic back (TH-02).
// No other check drives sustained 429s from the dependency (the
// retry-amplification checks fail it with 503, resets and hangs, the
// breaker's), so no other check meets either defect.
var throttlingMatrix = map[defect.Name]Expectation{
	defect.ThrottleNever: {Must: []string{"TH-01"}},
	defect.ThrottleStuck: {Must: []string{"TH-02"}},
}
