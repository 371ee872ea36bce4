package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// retryAfterMatrix: the defects the Retry-After suite catches. RL-09 is
// skipped, not failed, when the gateway's 429 carries no valid Retry-After:
// there is nothing to compare, and HS-01a already fails for it. Only the
// property HS-08p, which draws Retry-After values above a second, catches
// retry-after-capped: every fixed check's wait is 1 s, within the cap.
var retryAfterMatrix = map[defect.Name]Expectation{
	defect.IgnoreRetryAfter:   {Must: []string{"HS-08", "RL-10", "HS-03", "HS-08p"}, May: []string{"RB-01p"}},
	defect.RetryAfterCapped:   {Must: []string{"HS-08p"}},
	defect.NoRetryAfterHeader: {Must: []string{"HS-01a", "HS-01b", "HS-02"}},
	defect.BadRetryAfter:      {Must: []string{"HS-01a", "HS-01b", "HS-02"}},
}
