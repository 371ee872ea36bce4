package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// amplificationMatrix: the defects the retry-amplification suite catches.
// retry-every-tier multiplies attempts per layer, so every per-request
// count fails (a 4xx turns into the service's 502, which the gateway
// re-sends too); no-downstream-key makes the service retry its POST without
// a key (HS-13), on top of the idempotency suite's IK-17b. no-retry-budget
// may fail TH-02: its unbounded retries put up to three refusals per
// request into the adaptive throttler's window, whose rejection rate then
// decays past the declared recovery on a busy runner (46 of 57 requests
// reached the dependency in a fresh-clone CI run, against 90 % wanted).
var amplificationMatrix = map[defect.Name]Expectation{
	// RB-01p fails them too whenever its exploration draws a failing
	// script (a Retry-After step, for ignore-retry-after), which a short
	// budget need not: allowed, not required.
	defect.RetryEveryTier:    {Must: []string{"RB-01", "RB-01b", "HS-14", "RB-03"}, May: []string{"RB-01p", "HS-08p"}},
	defect.RetryNonRetryable: {Must: []string{"RB-01b"}},
	// Only a failed connection between gateway and service triggers the
	// re-send, and only the hop proxy between them can fail it: HS-14
	// alone, hop by hop.
	defect.GatewayResendOnReset: {Must: []string{"HS-14"}},
	defect.NoJitter:             {Must: []string{"RB-15", "BO-01", "BO-08"}},
	defect.NoRetryBudget:        {Must: []string{"RB-02", "RB-05"}, May: []string{"TH-02"}},
	// Fixed scenarios fail every call the same way; only the property
	// mixes failure kinds within one request.
	defect.RetryCapPerFailureKind: {Must: []string{"RB-01p"}},
	defect.NoDownstreamKey:        {Must: []string{"HS-13"}},
}
