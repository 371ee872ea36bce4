package certify

import (
	"testing"

	"github.com/resilcheck/resilcheck/check/webhooksender"
)

// senderSpec is the spec lines that make the reference send webhooks: the
// endpoint resilcheck answers at; the stack declares the rest itself.
const senderSpec = "webhook_sender:\n  endpoint: merchant\n"

// TestWebhookSender_matrix certifies the reference as a webhook sender with
// the webhook-sender suite alone, correct (every check passes) and with
// each defect of the suite's contract (exactly its checks fail, at the
// service). The cases run side by side: each mostly waits out the
// sender's backoff and the endpoint's windows.
func TestWebhookSender_matrix(t *testing.T) {
	for i, d := range suiteDefects(webhooksender.Name) {
		t.Run(caseName(d), func(t *testing.T) {
			t.Parallel()
			certifySuiteCase(t, d, webhooksender.Name, senderSpec+"concurrency: 3\n", 20261127+uint64(i))
		})
	}
}
