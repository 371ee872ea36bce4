package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// deadlineMatrix: the defects the deadline suite catches. Without
// propagation every downstream call lacks a budget in each of the three
// formats; work after the deadline runs detached from the caller, so its
// dependency call outlives both the deadline (DL-03) and a disconnected
// caller (DL-07), and its retries start after the deadline (DL-06). The
// caller's own answer stays on time under both, so HS-18 passes.
var deadlineMatrix = map[defect.Name]Expectation{
	// Both tiers forward no budget; the gateway is the first, so the hop
	// into the service already shows none.
	defect.NoDeadlinePropagation: {Must: []string{"DL-04", "DL-04g", "DL-04e"}, Tier: GatewayTier},
	// DL-03p fails it whenever its exploration draws a hang or late headers:
	// the detached call outlives the budget. RB-01p may fail it too (1 run
	// in 4 at one seed): the detached retries go on after the client's
	// answer, racing the property's next request, so what it counts for a
	// request depends on timing.
	defect.WorkAfterDeadline: {Must: []string{"DL-03", "DL-06", "DL-07"}, May: []string{"DL-03p", "RB-01p"}},
	// A hang sends no headers, so the fixed checks see the deadline kept;
	// only the property trickles a body.
	defect.DeadlineOnHeadersOnly: {Must: []string{"DL-03p"}},
}
