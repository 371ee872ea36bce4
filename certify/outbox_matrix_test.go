package certify

import (
	"testing"

	"github.com/resilcheck/resilcheck/check/outbox"
)

// TestOutbox_matrix certifies the reference with the outbox suite alone,
// correct (every check passes) and with each defect of its relay (exactly
// its checks fail, at the service), on a real embedded NATS JetStream
// broker taken down and withheld.
func TestOutbox_matrix(t *testing.T) {
	t.Parallel() // after TestMatrix, beside the other suites' cases: each mostly waits
	for i, d := range suiteDefects(outbox.Name) {
		t.Run(caseName(d), func(t *testing.T) {
			t.Parallel()
			certifySuiteCase(t, d, outbox.Name, "concurrency: 2\noutbox: {subject: payments.events}\n", 20261129+uint64(i))
		})
	}
}
