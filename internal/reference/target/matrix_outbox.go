package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// outboxMatrix: the defects the outbox suite catches, each by the checks
// that judge what it breaks. Every one is proven by TestOutbox_matrix
// (certify/outbox_matrix_test.go), which certifies the stack with the
// outbox suite alone.
//   - outbox-dual-write publishes once, from the request path: with the
//     broker down and the service crashed the event is gone (OB-02), and
//     an unconfirmed publish is never made again (OB-03).
//   - outbox-no-relay publishes nothing, which leaves OB-03 no first
//     publish to withhold.
var outboxMatrix = map[defect.Name]Expectation{
	defect.OutboxDualWrite: {Must: []string{"OB-02", "OB-03"}, Direct: outboxDirect},
	defect.OutboxNewID:     {Must: []string{"OB-03"}, Direct: outboxDirect},
	defect.OutboxNoRelay:   {Must: []string{"OB-01", "OB-02"}, Vacuous: []string{"OB-03"}, Direct: outboxDirect},
}

// outboxDirect names the test that certifies the outbox defects.
const outboxDirect = "TestOutbox_matrix"
