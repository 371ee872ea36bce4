package gateway

import (
	"encoding/json"
	"net/http"
)

// ProblemBase prefixes the gateway's own problem type URIs; each anchor is
// documented in this package's README.md.
const ProblemBase = "https://github.com/resilcheck/resilcheck/blob/main/reference/gateway/README.md#"

// The rate-limit draft (-10 §5) registers these two types; the gateway uses
// them as registered (RL-17).
const (
	ProblemQuotaExceeded   = "https://iana.org/assignments/http-problem-types#quota-exceeded"
	ProblemReducedCapacity = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity"
)

// Problem is an RFC 9457 problem details object as the gateway writes it.
type Problem struct {
	Type             string   `json:"type"`
	Title            string   `json:"title"`
	Status           int      `json:"status"`
	Detail           string   `json:"detail"`
	ViolatedPolicies []string `json:"violated-policies,omitempty"`
}

// Problem type anchors under ProblemBase.
const (
	probNotFound         = "not-found"
	probMethodNotAllowed = "method-not-allowed"
	probBadTenant        = "invalid-tenant"
	probBadTimeout       = "invalid-timeout"
	probBadKey           = "invalid-idempotency-key"
	probTooLarge         = "request-too-large"
	probBadBody          = "invalid-request"
	probDeadline         = "deadline-exceeded"
	probBadGateway       = "service-unreachable"
)

func writeProblem(w http.ResponseWriter, p Problem) {
	// json.Marshal escapes <, > and &, so nothing reflected in a detail can
	// become markup.
	b, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_, _ = w.Write(b)
}

func problem(status int, anchor, title, detail string) Problem {
	return Problem{Type: ProblemBase + anchor, Title: title, Status: status, Detail: detail}
}
