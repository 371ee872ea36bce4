package certify

import (
	"testing"

	"github.com/resilcheck/resilcheck/check/queue"
	"github.com/resilcheck/resilcheck/internal/reference/target"
)

// queueSpec opts the reference into consuming a queue.
const queueSpec = "concurrency: 2\nqueue_consumer: {subject: payments.requested}\n"

// TestQueue_matrix certifies the reference with the queue suite alone,
// correct (every check passes) and with each defect of the consumer
// (exactly its checks fail, at the service), on a real embedded NATS
// JetStream broker and the stack's in-process consumer; and with each
// defect of another contract the queue suite catches too
// (target.QueueAlso).
func TestQueue_matrix(t *testing.T) {
	t.Parallel() // after TestMatrix, beside the other suites' cases: each mostly waits
	for i, d := range suiteDefects(queue.Name) {
		t.Run(caseName(d), func(t *testing.T) {
			t.Parallel()
			certifySuiteCase(t, d, queue.Name, queueSpec, 20261128+uint64(i))
		})
	}
	for d, want := range target.QueueAlso {
		t.Run(caseName(d), func(t *testing.T) {
			t.Parallel()
			certifySuiteCaseWant(t, d, queue.Name, queueSpec, 20261140, want)
		})
	}
}
