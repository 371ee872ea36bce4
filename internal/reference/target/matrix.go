package target

import (
	"cmp"
	"slices"

	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// Expectation is what certifying the reference with one defect must show:
// every check in Must fails, checks in May are allowed to fail (properties
// that explore at random may or may not reach the defect's path), and every
// other check passes.
type Expectation struct {
	Must []string
	May  []string
	// Vacuous lists checks the defect leaves nothing to judge, so they may
	// end inconclusive (the client matrix: a client that never retries a
	// 429 gives no retry after a 429's Retry-After to time).
	Vacuous []string
	// Tier is the tier of the stack every failure must be laid at
	// (reports.Check.Tier); empty means the defect's component.
	Tier string
	// Direct names the test that proves the defect by certifying the stack
	// with its suite alone, for a defect whose suite shares no code with the
	// others and needs a spec of its own; TestMatrix leaves it out. Empty
	// means TestMatrix certifies it, on its contract's suite and every suite
	// with a check named here.
	Direct string
}

// Allows reports whether a failure of check id is expected.
func (e Expectation) Allows(id string) bool {
	return slices.Contains(e.Must, id) || slices.Contains(e.May, id)
}

// Matrix is the defect matrix: for each reference defect, the checks that
// catch it, merged over the suites. A defect absent from the map must fail
// no check at all. Certifying the correct stack must fail none.
func Matrix() map[defect.Name]Expectation {
	out := map[defect.Name]Expectation{}
	for _, part := range matrixParts {
		for d, e := range part {
			m := out[d]
			m.Must = append(m.Must, e.Must...)
			m.May = append(m.May, e.May...)
			m.Vacuous = append(m.Vacuous, e.Vacuous...)
			m.Tier = cmp.Or(m.Tier, e.Tier)
			m.Direct = cmp.Or(m.Direct, e.Direct)
			out[d] = m
		}
	}
	return out
}

// matrixParts holds each suite's expectations, one file per suite.
var matrixParts = []map[defect.Name]Expectation{
	idempotencyMatrix, amplificationMatrix, retryAfterMatrix, deadlineMatrix, rateLimitMatrix,
	hedgingMatrix, throttlingMatrix, webhooksMatrix, senderMatrix, queueMatrix, outboxMatrix, grpcMatrix,
}
