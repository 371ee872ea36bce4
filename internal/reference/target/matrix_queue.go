package target

import "github.com/resilcheck/resilcheck/internal/reference/defect"

// queueMatrix: the defects the queue suite catches, each by the checks
// that judge what it breaks. The consumer shares the payments flow but
// none of its defects touch an HTTP request, so every one is proven by
// TestQueue_matrix (certify/queue_matrix_test.go), which certifies the
// stack with the queue suite alone.
//   - consumer-ack-first acks before its effect call, so QC-03 finds no
//     crash between its effect and its ack to judge.
//   - consumer-no-ack never acks the first copy QC-02 needs settled, nor
//     the message QC-06 publishes behind a poison one.
//
// The stack consumes a queue only when the spec names its subject, which
// TestMatrix's specs do not; TestQueue_matrix also proves that
// no-downstream-key, an idempotency defect of the payments flow the
// consumer shares, fails QC-03 (QueueAlso).
var queueMatrix = map[defect.Name]Expectation{
	defect.ConsumerAckFirst:     {Must: []string{"QC-04"}, Vacuous: []string{"QC-03"}, Direct: queueDirect},
	defect.ConsumerFreshKey:     {Must: []string{"QC-02", "QC-03"}, Direct: queueDirect},
	defect.ConsumerNoDeadLetter: {Must: []string{"QC-05"}, Direct: queueDirect},
	defect.ConsumerNoAck:        {Must: []string{"QC-01", "QC-03", "QC-04", "QC-06"}, Vacuous: []string{"QC-02"}, Direct: queueDirect},
	defect.ConsumerPoisonBlocks: {Must: []string{"QC-06"}, Direct: queueDirect},
}

// QueueAlso are defects of other contracts that the queue suite catches
// too, with the queue checks they fail: the consumer charges through the
// payments flow. no-downstream-key charges without a key, so the charge a
// redelivery after a crash drives is a second one.
var QueueAlso = map[defect.Name]Expectation{
	defect.NoDownstreamKey: {Must: []string{"QC-03"}},
}

// queueDirect names the test that certifies the queue defects.
const queueDirect = "TestQueue_matrix"
