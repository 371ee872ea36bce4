package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// throttlingMatrix: the defects the throttling suite catches.
// throttle-never lets the refused load through (TH-01) and, never having
// engaged, recovers at once (TH-02 passes). throttle-stuck engages like the
// correct throttler (TH-01 passes) and never lets the traffic back (TH-02).
// No other check drives sustained 429s from the dependency (the
// retry-amplification checks fail it with 503, resets and hangs, the
// breaker's), so no other check meets either defect.
//
// retry-every-tier truly breaks TH-01 in some draws: the gateway re-sends
// every 503 the service's throttler answers, so the throttler sees up to
// three requests for each one offered and lets (1 − max_rejection) of all
// of them through (seed 22: 94 calls for 67 requests, limit 61.8; seeds 9
// and 21 passed with 18 and 32). Retries at two layers defeat client-side
// throttling as they multiply attempts (SRE book ch. 21, Figure 21-2).
var throttlingMatrix = map[defect.Name]Expectation{
	defect.ThrottleNever:  {Must: []string{"TH-01"}},
	defect.ThrottleStuck:  {Must: []string{"TH-02"}},
	defect.RetryEveryTier: {May: []string{"TH-01"}},
}
