package webhooksender

import (
	"fmt"

	"github.com/resilcheck/resilcheck/check"
)

// needSender: the target declares a webhook sender the harness can judge.
var needSender = check.Need{Name: "webhook sender",
	Doc: "the target declares that it sends webhooks (webhook_sender: endpoint, secret, max_attempts)",
	Unmet: func(h *check.Harness) string {
		p := h.Policy.WebhookSender
		switch {
		case !p.Declared():
			return "the target declares no webhook sender (webhook_sender.endpoint)"
		case p.Scheme != "" && p.Scheme != schemeStandard:
			return fmt.Sprintf("the target's webhook scheme %q is not one the harness speaks (%s)", p.Scheme, schemeStandard)
		case len(p.Key) == 0:
			return "the target's webhook secret could not be read (webhook_sender.secret, webhook_sender.secret_env)"
		}
		return ""
	}}

// needRetries: the sender declares retries.
var needRetries = check.Need{Name: "webhook retries",
	Doc: "the webhook sender declares more than one attempt (webhook_sender.max_attempts)",
	Unmet: func(h *check.Harness) string {
		if n := h.Policy.WebhookSender.MaxAttempts; n < 2 {
			return fmt.Sprintf("the webhook sender declares %d attempt per event: no retry to judge (webhook_sender.max_attempts)", n)
		}
		return ""
	}}

// needBackoff: the sender declares a least wait before a retry.
var needBackoff = check.Need{Name: "webhook backoff",
	Doc: "the webhook sender declares its least wait before each retry (webhook_sender.backoff)",
	Unmet: func(h *check.Harness) string {
		if h.Policy.WebhookSender.Wait(1) <= 0 {
			return "the webhook sender declares no wait before a retry (webhook_sender.backoff)"
		}
		return ""
	}}

// needTimeout: the sender declares how long it waits for an answer.
var needTimeout = check.Need{Name: "webhook attempt timeout",
	Doc: "the webhook sender declares how long it waits for the endpoint's answer (webhook_sender.attempt_timeout)",
	Unmet: func(h *check.Harness) string {
		if h.Policy.WebhookSender.AttemptTimeout <= 0 {
			return "the webhook sender declares no attempt timeout (webhook_sender.attempt_timeout)"
		}
		return ""
	}}

// schemeStandard names the Standard Webhooks 1.0.0 signing scheme.
const schemeStandard = "standard"
