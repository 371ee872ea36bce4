package payments

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/resilcheck/resilcheck/headers"
)

// ProblemBase prefixes every problem type URI; each anchor is documented in
// this package's README.md.
const ProblemBase = "https://github.com/resilcheck/resilcheck/blob/main/reference/payments/README.md#"

// Problem is an RFC 9457 problem details object as the service writes it.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	PaymentID string `json:"payment_id,omitempty"`
}

// Problem type anchors.
const (
	probKeyMissing  = "idempotency-key-missing"
	probKeyInvalid  = "idempotency-key-invalid"
	probInvalidBody = "invalid-request"
	probInvalidTime = "invalid-timeout"
	probKeyReused   = "idempotency-key-reused"
	probInProgress  = "idempotency-key-in-use"
	probDeclined    = "declined"
	probUnavailable = "processor-unavailable"
	probDeadline    = "deadline-exceeded"
	probUpstream    = "processor-rejected"
	probStore       = "store-unavailable"
	probNotFound    = "not-found"
	// probWebhookUnverified: a delivery's signature or timestamp did not verify.
	probWebhookUnverified = "webhook-unverified"
)

func problemBody(status int, anchor, title, detail, paymentID string) []byte {
	// json.Marshal escapes <, > and &, so nothing the caller sent can be
	// reflected as markup even if a detail ever quoted it.
	b, _ := json.Marshal(Problem{Type: ProblemBase + anchor, Title: title, Status: status,
		Detail: detail, PaymentID: paymentID})
	return b
}

func writeProblem(w http.ResponseWriter, status int, anchor, title, detail string) {
	writeRaw(w, status, problemBody(status, anchor, title, detail, ""))
}

// writeRetryable writes a problem with Retry-After, rounded up to whole seconds.
func writeRetryable(w http.ResponseWriter, status int, after time.Duration, anchor, title, detail string) {
	if after < time.Second {
		after = time.Second
	}
	w.Header().Set("Retry-After", headers.FormatRetryAfter(after))
	writeProblem(w, status, anchor, title, detail)
}

// writeRaw writes a stored or fresh body; 2xx bodies are JSON, the rest problems.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	if status >= 200 && status < 300 {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "application/problem+json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
