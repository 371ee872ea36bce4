package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// hedgingMatrix: the defects the hedging suite catches, each by the one
// check that judges what it breaks (and maybe by HD-01p, whose random cases
// may or may not reach it; hedge-no-budget only binds under concurrency,
// which HD-01p's one request a case never has), and by the checks its
// behaviour really breaks besides:
//   - hedge-no-delay sends every call twice at once. Where the first copy
//     fails at once the second starts after it ended, so to the dependency
//     it is a second attempt, with no backoff and no regard for a
//     Retry-After: the checks that count or time calls per request may
//     see it, as the order of two simultaneous copies decides; and every
//     attempt the throttler lets through reaches the dependency twice
//     (TH-01); and a copy of a warm-up request, sent at once but arriving
//     after the proxies went quiet, lands in a deadline check's window
//     carrying the budget of a request that sent none (DL-04: 1998 ms
//     where 1034 ms were left, in the fifth CI run).
//   - hedge-loser-kept sends every copy, the first included, on a context
//     only the deadline ends, so a caller who leaves does not cancel it
//     (DL-07).
var hedgingMatrix = map[defect.Name]Expectation{
	defect.HedgeNoDelay: {Must: []string{"HD-01"},
		May: []string{"HD-01p", "BO-01", "BO-08", "HS-14", "RB-01", "RB-01b", "RB-01p", "RB-02", "RB-03", "RB-05", "RB-15", "HS-03", "HS-08", "HS-08p", "HS-09", "HS-10", "RL-10", "IK-17p", "DL-06", "DL-04", "DL-04g", "DL-04e", "TH-01"}},
	defect.HedgeMaxCopies: {Must: []string{"HD-02"}, May: []string{"HD-01p"}},
	defect.HedgeNoBudget:  {Must: []string{"HD-03"}},
	defect.HedgeLoserKept: {Must: []string{"HD-04", "DL-07"}, May: []string{"HD-01p"}},
	defect.HedgeNewKey:    {Must: []string{"HD-05", "HD-01p"}}, // every hedged case shows a second key
	// The service hedges its keyless call: hedging a non-idempotent call,
	// each copy a charge.
	defect.NoDownstreamKey: {Must: []string{"HD-05"}, May: []string{"HD-01p"}},
}
