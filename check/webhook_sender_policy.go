package check

import (
	"time"

	"github.com/resilcheck/resilcheck/faults"
)

// WebhookSenderSide is the journal side of the proxy before the endpoint a
// webhook sender delivers to: the harness answers there itself.
const WebhookSenderSide = "webhook"

// WebhookSenderPolicy is how the target sends webhooks (the spec's
// webhook_sender section): what makes it emit an event, the proxy before
// the endpoint it delivers to, the secret it signs with, and the retries it
// declares. The zero value declares no sender.
type WebhookSenderPolicy struct {
	// Endpoint is the proxy the target's deliveries reach, journaled as
	// side WebhookSenderSide; nil = the target sends no webhooks.
	Endpoint *faults.Proxy
	// Trigger is the operation whose success emits one event; nil means
	// the harness's Operation.
	Trigger *Operation
	// Scheme names the signing scheme: "standard" (Standard Webhooks 1.0.0).
	Scheme string
	// Key is the HMAC key: the decoded bytes of the whsec_ secret.
	Key []byte
	// MaxAttempts is the most attempts the target declares per event.
	MaxAttempts int
	// Backoff is the least wait before each retry, the last repeated.
	Backoff []time.Duration
	// AttemptTimeout is how long the target waits for an answer before
	// it abandons an attempt; 0 = not declared.
	AttemptTimeout time.Duration
	// Body returns a body the endpoint received whole, by its journal
	// digest (faults.Entry.BodySHA256), for verifying signatures of the
	// attempts the proxy answered itself; nil or false = not received.
	Body func(digest string) ([]byte, bool)
}

// Declared reports whether the target declares a webhook sender.
func (p WebhookSenderPolicy) Declared() bool { return p.Endpoint != nil }

// Wait is the least wait the target declares before retry n (n = 1 is the
// second attempt): Backoff[n-1], the last repeated, 0 when none is declared.
func (p WebhookSenderPolicy) Wait(n int) time.Duration {
	if len(p.Backoff) == 0 || n < 1 {
		return 0
	}
	return p.Backoff[min(n, len(p.Backoff))-1]
}
