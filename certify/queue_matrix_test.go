package certify

import (
	"testing"

	"github.com/resilcheck/resilcheck/check/queue"
)

// TestQueue_matrix certifies the reference with the queue suite alone,
// correct (every check passes) and with each defect of the consumer
// (exactly its checks fail, at the service), on a real embedded NATS
// JetStream broker and the stack's in-process consumer.
func TestQueue_matrix(t *testing.T) {
	for i, d := range suiteDefects(queue.Name) {
		t.Run(caseName(d), func(t *testing.T) {
			certifySuiteCase(t, d, queue.Name, "concurrency: 2\n", 20261128+uint64(i))
		})
	}
}
