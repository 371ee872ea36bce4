package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// ClientMatrix is the client suite's defect matrix: for each defect of the
// reference SDK (defect.Client), the CL checks that must catch it when
// examples/clients certifies the SDK with it switched on; every other check
// ends as it does for the correct SDK.
func ClientMatrix() map[defect.Name]Expectation {
	return map[defect.Name]Expectation{
		// The outage scenario answers 503 with Retry-After: 1 for ever:
		// retried until the 10 s deadline, about ten attempts, cap 4.
		defect.ClientNoAttemptCap: {Must: []string{"CL-01"}},
		// Every scenario with a Retry-After of a second gets a retry drawn
		// from the 500 ms backoff instead: early in all four forms.
		defect.ClientIgnoreRetryAfter: {Must: []string{"CL-02", "CL-02a", "CL-02f", "CL-02r"}},
		// A day-long Retry-After is clipped to MaxRetryAfter and waited
		// out past the 10 s deadline, which the whole operation then overruns.
		defect.ClientWaitPastDeadline: {Must: []string{"CL-03", "CL-08"}},
		// The keyed POST's second and third attempts carry new keys.
		defect.ClientNewKeyPerAttempt: {Must: []string{"CL-04"}},
		// The 400 is retried up to the cap.
		defect.ClientRetryAny4xx: {Must: []string{"CL-06"}},
		// Nine clients wait 500 ms to 1 s before every retry: no growth,
		// but dispersed.
		defect.ClientConstantBackoff: {Must: []string{"CL-07"}},
		// Nine clients wait exactly 500 ms, then 1 s, then 2 s: together.
		defect.ClientNoJitter: {Must: []string{"CL-13"}},
		// The outage and the day-long Retry-After end in success.
		defect.ClientFalseSuccess: {Must: []string{"CL-09"}},
		// The 429 (IMF-fixdate) scenario ends after one attempt, its
		// scripted success never consumed; so no retry follows the
		// IMF-fixdate Retry-After, which only that scenario sends.
		defect.Client429Final: {Must: []string{"CL-10"}, Vacuous: []string{"CL-02f"}},
		// The deadline header says 10 s on every attempt, more than is left
		// from the second attempt on.
		defect.ClientStaleBudget: {Must: []string{"CL-12"}},
		// The hedge scenario's second attempt is answered after 1 s: its
		// copy goes out 100 ms in, not 300 ms.
		defect.ClientHedgeEarly: {Must: []string{"CL-14"}},
		// The hedge scenario answers its second attempt after 1 s: copies
		// at 0, 300, 600 and 900 ms, where 2 are declared.
		defect.ClientHedgeMaxCopies: {Must: []string{"CL-15"}},
		// The second attempt's first copy answers at 1 s; its second,
		// answered after 3 s, runs on until the 2 s attempt timeout.
		defect.ClientHedgeLoserKept: {Must: []string{"CL-16"}},
		// The hedge scenario's copy carries a key of its own.
		defect.ClientHedgeNewKey: {Must: []string{"CL-04"}},
	}
}
