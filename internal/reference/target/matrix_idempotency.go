package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// idempotencyMatrix: the defects the duplicate-side-effect suite catches.
var idempotencyMatrix = map[defect.Name]Expectation{
	defect.NoIdempotency:   {Must: []string{"IK-04", "IK-06", "IK-07", "IK-17a", "IK-17p"}},
	defect.RacyIdempotency: {Must: []string{"IK-07"}, May: []string{"IK-17p"}},
	defect.ReplayMismatch:  {Must: []string{"IK-06"}, May: []string{"IK-17p"}},
	defect.NoDownstreamKey: {Must: []string{"IK-17b"}},
	defect.CrossTenantKeys: {Must: []string{"IK-13"}, May: []string{"IK-17p"}},
}
