package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// rateLimitMatrix: the defects the rate-limit-header suite catches.
//
// Without the fields, the syntax checks that require them on every response
// fail; the rest skip (nothing advertised to compare) or judge behaviour
// that is unchanged. An overstated remaining is caught by the sequential
// client (a 429 right after r>0) and by the legacy convention that a 429
// says X-RateLimit-Remaining: 0; r and X-Remaining lie alike, so RL-24 passes.
var rateLimitMatrix = map[defect.Name]Expectation{
	defect.NoRateLimitHeaders:      {Must: []string{"RL-01", "RL-07"}},
	defect.LyingRateLimitRemaining: {Must: []string{"RL-07b", "RL-21", "RL-07p"}},
	// Only the property interleaves two tenants and reads the remaining
	// each sees: RL-20 judges B's admission, which is right.
	defect.SharedRateLimitRemaining: {Must: []string{"RL-07p"}},
}
