package certify

import (
	"testing"

	"github.com/resilcheck/resilcheck/check/webhooks"
)

// TestWebhooks_matrix certifies the reference with the webhooks suite
// alone, correct (every check passes) and with each defect of the suite's
// contract (exactly its checks fail, at the service): the proof of the
// defects TestMatrix leaves out (Expectation.Direct), and a fast one of the
// rest. The receiver shares no code with the payments route, so the other
// suites' verdicts cannot move.
func TestWebhooks_matrix(t *testing.T) {
	t.Parallel() // after TestMatrix, beside the other suites' cases: each mostly waits
	for i, d := range suiteDefects(webhooks.Name) {
		t.Run(caseName(d), func(t *testing.T) {
			t.Parallel()
			certifySuiteCase(t, d, webhooks.Name, "concurrency: 2\n", 20261127+uint64(i))
		})
	}
}
